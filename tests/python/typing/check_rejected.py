"""Runs mypy on a file whose lines marked `# rejects: "WORD"` must each be an error naming
WORD, and exits non-zero unless mypy fails on exactly those lines, each error naming its word.

    python check_rejected.py FILE --config-file MYPY_INI [--cache-dir DIR]
"""

import argparse
import re
import subprocess
import sys
from collections import defaultdict


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--config-file", required=True)
    parser.add_argument("--cache-dir", default="/dev/null")
    args = parser.parse_args()
    with open(args.file) as source:
        marked = {number: match.group(1) for number, line in enumerate(source, 1)
                  if (match := re.search(r'#\s*rejects:\s*("[^"]+")', line))}
    if not marked:
        print(f"{args.file} marks no line `# rejects: \"WORD\"`")
        return 1
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", args.config_file,
                             "--cache-dir", args.cache_dir, args.file],
                            capture_output=True, text=True)
    print(result.stdout + result.stderr, end="")
    errors = defaultdict(list)
    for line in result.stdout.splitlines():
        match = re.match(r"^(.*?):(\d+): error: (.*)$", line)
        if match:
            errors[int(match.group(2))].append(match.group(3))
    problems = []
    if result.returncode == 0:
        problems.append("mypy accepted the file")
    for number, word in sorted(marked.items()):
        if not any(word in message for message in errors.get(number, [])):
            problems.append(f"line {number}: no error naming {word}")
    for number in sorted(set(errors) - set(marked)):
        problems.append(f"line {number}: an error on a line not marked: {errors[number]}")
    for problem in problems:
        print(f"check_rejected: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
