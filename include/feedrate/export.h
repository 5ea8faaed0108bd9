// FEEDRATE_API marks what libfeedrate.so exports: the classes and functions of the public API
// (include/feedrate/). The library is built with -fvisibility=hidden and
// -fvisibility-inlines-hidden, so everything else in it (the stages, loader/'s rooms, the
// libraries it links statically) stays internal; the command line, the Python module and the
// tests link those internals from the static feedrate_internal instead. A class marked
// FEEDRATE_API exports its members, its vtable and its type_info (what a consumer's catch of
// feedrate::Error needs). Thread-safety: a macro.
#pragma once

#define FEEDRATE_API __attribute__((visibility("default")))
