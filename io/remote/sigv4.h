// Signing one libcurl request with AWS Signature V4: libcurl computes the signature itself
// (CURLOPT_AWS_SIGV4); this sets the scope, the key and secret, and the x-amz-security-token
// header of temporary credentials, which libcurl 7.88 (Debian 12) does not add by itself. What a
// service needs beyond that (S3's x-amz-content-sha256) the caller adds to `headers`.
// Thread-safety: writes only the handle and list it is given.
#pragma once

#include <curl/curl.h>

#include <string>

#include "io/remote/aws_credentials.h"
#include "io/remote/curl_handle.h"

namespace feedrate::io {

// `scope`: "aws:amz:REGION:SERVICE"; libcurl copies it, the key, the secret and the header line.
// The caller sets CURLOPT_HTTPHEADER to `headers` afterwards.
void sign_sigv4(CURL* easy, const std::string& scope, const AwsCredentials& credentials,
                CurlList& headers);

}  // namespace feedrate::io
