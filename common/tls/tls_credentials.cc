#include "common/tls/tls_credentials.h"

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace taskboard::tls {
namespace {

// The PEM text of the file given to `flag`.
absl::StatusOr<std::string> ReadPem(const std::string& path, absl::string_view flag) {
  std::ifstream in(path);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", path, ": cannot read the file; check the path and permissions"));
  }
  std::stringstream text;
  text << in.rdbuf();
  if (!absl::StrContains(text.str(), "-----BEGIN ")) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", path, ": not a PEM file (no -----BEGIN line)"));
  }
  return text.str();
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const ServerTlsFlags& flags) {
  if (flags.cert.empty() && flags.key.empty() && flags.client_ca.empty()) return nullptr;
  if (flags.cert.empty() || flags.key.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert and --tls-key go together (the server's certificate and its key); "
        "--tls-client-ca needs both");
  }
  absl::StatusOr<std::string> cert = ReadPem(flags.cert, "--tls-cert");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(flags.key, "--tls-key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (!flags.client_ca.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(flags.client_ca, "--tls-client-ca");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const ClientTlsFlags& flags) {
  if (flags.ca.empty() && flags.cert.empty() && flags.key.empty()) return nullptr;
  if (flags.ca.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flags.cert_flag, " / ", flags.key_flag, " need ",
                                                   flags.ca_flag,
                                                   " (the CA that signed the scheduler's "
                                                   "certificate)"));
  }
  if (flags.cert.empty() != flags.key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flags.cert_flag, " and ", flags.key_flag,
                     " go together (this client's certificate and its key, for mTLS)"));
  }
  grpc::SslCredentialsOptions options;
  absl::StatusOr<std::string> ca = ReadPem(flags.ca, flags.ca_flag);
  if (!ca.ok()) return ca.status();
  options.pem_root_certs = *ca;
  if (!flags.cert.empty()) {
    absl::StatusOr<std::string> cert = ReadPem(flags.cert, flags.cert_flag);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(flags.key, flags.key_flag);
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  return grpc::SslCredentials(options);
}

}  // namespace taskboard::tls
