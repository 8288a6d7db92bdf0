#ifndef TASKBOARD_TESTS_TESTING_TEST_CERTIFICATES_H_
#define TASKBOARD_TESTS_TESTING_TEST_CERTIFICATES_H_

// Certificates for tests of TLS across real processes, made at test time with
// the openssl CLI (scripts/install-deps.sh --test) in a temp dir, once per test
// binary: a CA (ca.pem, ca.key), a server certificate for 127.0.0.1 and
// localhost (server.pem, server.key) and a client one (client.pem,
// client.key).

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::testing {

inline constexpr char kMakeTestCertificates[] = R"(set -e
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj /CN=taskboard-test-ca
key server.key
openssl req -new -key server.key -out server.csr -subj /CN=localhost
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
  -days 2 -extfile server.ext 2>/dev/null
key client.key
openssl req -new -key client.key -out client.csr -subj /CN=taskboard-test-client
printf 'extendedKeyUsage=clientAuth\n' > client.ext
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem \
  -days 2 -extfile client.ext 2>/dev/null
)";

// The directory holding the certificates; empty when openssl failed.
inline const std::filesystem::path& TestCertificatesDir() {
  static TempDir dir;
  static const bool made = [] {
    std::ofstream(dir.path() / "make.sh") << kMakeTestCertificates;
    const std::string command =
        absl::StrCat("cd '", dir.path().string(), "' && sh make.sh > make.log 2>&1");
    return std::system(command.c_str()) == 0;
  }();
  static const std::filesystem::path none;
  return made ? dir.path() : none;
}

// The path of one of the files above ("ca.pem", "server.key", ...).
inline std::string TestCertificate(const char* name) {
  return (TestCertificatesDir() / name).string();
}

// Its PEM text; "" when it could not be made.
inline std::string TestCertificatePem(const char* name) {
  return ReadFileOrEmpty(TestCertificate(name));
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_TEST_CERTIFICATES_H_
