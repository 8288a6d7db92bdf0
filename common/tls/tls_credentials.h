#ifndef TASKBOARD_COMMON_TLS_TLS_CREDENTIALS_H_
#define TASKBOARD_COMMON_TLS_TLS_CREDENTIALS_H_

// gRPC credentials from the --tls-* flags (docs/security.md#tls-and-mtls). Each
// function returns null when no flag is set (plaintext), and
// INVALID_ARGUMENT naming the flag when a combination cannot work or a file
// cannot be read or is not PEM.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"

namespace taskboard::tls {

struct ServerTlsFlags {
  std::string cert;       // --tls-cert: the server's certificate chain (PEM)
  std::string key;        // --tls-key: its private key (PEM)
  std::string client_ca;  // --tls-client-ca: require client certificates signed by it (mTLS)
};

// TLS when cert and key are set; mTLS (client certificates required and
// verified) when client_ca is also set.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const ServerTlsFlags& flags);

struct ClientTlsFlags {
  std::string ca;    // --tls-ca: the CA that signed the scheduler's certificate (PEM)
  std::string cert;  // --tls-cert: this client's certificate, for mTLS
  std::string key;   // --tls-key: its private key
  // The flags these came from, as errors name them: a scheduler replica's CA
  // is --ha-tls-ca, not the CLI's --tls-ca.
  std::string ca_flag = "--tls-ca";
  std::string cert_flag = "--tls-cert";
  std::string key_flag = "--tls-key";
};

// TLS when ca is set (cert and key add a client certificate, for mTLS).
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const ClientTlsFlags& flags);

}  // namespace taskboard::tls

#endif  // TASKBOARD_COMMON_TLS_TLS_CREDENTIALS_H_
