#ifndef TASKBOARD_TESTS_TESTING_TEST_CHANNEL_H_
#define TASKBOARD_TESTS_TESTING_TEST_CHANNEL_H_

// A channel to a scheduler for tests: plaintext or `credentials` (TLS), and
// with `token` every call carries `authorization: Bearer <token>` (a client
// interceptor, so helpers that build their own ClientContexts need not know).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/client_interceptor.h"

namespace taskboard::testing {

class BearerTokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit BearerTokenInterceptor(std::string token) : token_(std::move(token)) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({"authorization", "Bearer " + token_});
    }
    methods->Proceed();
  }

 private:
  const std::string token_;
};

class BearerTokenInterceptorFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit BearerTokenInterceptorFactory(std::string token) : token_(std::move(token)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* /*info*/) override {
    return new BearerTokenInterceptor(token_);
  }

 private:
  const std::string token_;
};

inline std::shared_ptr<grpc::Channel> TestChannel(
    const std::string& address, const std::string& token = "",
    std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr) {
  if (credentials == nullptr) credentials = grpc::InsecureChannelCredentials();
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  if (!token.empty()) factories.push_back(std::make_unique<BearerTokenInterceptorFactory>(token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      address, credentials, grpc::ChannelArguments(), std::move(factories));
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_TEST_CHANNEL_H_
