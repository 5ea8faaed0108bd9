#include "io/remote/sigv4.h"

namespace feedrate::io {

void sign_sigv4(CURL* easy, const std::string& scope, const AwsCredentials& credentials,
                CurlList& headers) {
  curl_easy_setopt(easy, CURLOPT_AWS_SIGV4, scope.c_str());
  // USERNAME and PASSWORD rather than USERPWD "key:secret": a secret may contain ':'.
  curl_easy_setopt(easy, CURLOPT_USERNAME, credentials.access_key_id.c_str());
  curl_easy_setopt(easy, CURLOPT_PASSWORD, credentials.secret_access_key.reveal().c_str());
  if (!credentials.session_token.empty()) {
    const std::string token = "x-amz-security-token: " + credentials.session_token.reveal();
    append_header(headers, token.c_str());
  }
}

}  // namespace feedrate::io
