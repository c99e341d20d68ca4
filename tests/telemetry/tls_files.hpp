// What the TLS and basic-auth tests need on disk: a CA and a server certificate it signed (made
// by the openssl command, as an operator would), bcrypt hashes made by libcrypt, and the web
// config files that name them.
//   auto files = test::make_tls_files(dir, "studio.example");   // dir/ca.crt, server.crt, ...
//   std::string hash = test::bcrypt_hash("secret");              // "$2b$04$..."
#pragma once

#include <crypt.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

namespace hdstream::test {

struct TlsFiles {
  std::filesystem::path ca_cert;      // the CA a client trusts
  std::filesystem::path server_cert;  // signed by it, for `name` and 127.0.0.1
  std::filesystem::path server_key;
  std::filesystem::path other_ca_cert;  // a CA that signed nothing here
};

inline void run_or_throw(const std::string& command) {
  if (std::system((command + " >/dev/null 2>&1").c_str()) != 0) {
    throw std::runtime_error("failed: " + command);
  }
}

inline TlsFiles make_tls_files(const std::filesystem::path& dir, const std::string& name) {
  const std::string d = dir.string();
  TlsFiles files{dir / "ca.crt", dir / "server.crt", dir / "server.key", dir / "other-ca.crt"};
  for (const char* ca : {"ca", "other-ca"}) {
    run_or_throw(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 "
        "-subj /CN=" +
        std::string(ca) + " -keyout " + d + "/" + ca + ".key -out " + d + "/" + ca + ".crt");
  }
  run_or_throw("openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=" + name +
               " -keyout " + d + "/server.key -out " + d + "/server.csr");
  {
    std::ofstream ext(dir / "server.ext");
    ext << "subjectAltName=DNS:" << name << ",IP:127.0.0.1\n";
  }
  run_or_throw("openssl x509 -req -in " + d + "/server.csr -CA " + d + "/ca.crt -CAkey " + d +
               "/ca.key -CAcreateserial -days 2 -extfile " + d + "/server.ext -out " + d +
               "/server.crt");
  return files;
}

// A bcrypt hash of `password` at `cost` (4, the lowest, keeps the tests quick).
inline std::string bcrypt_hash(const std::string& password, unsigned long cost = 4) {
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", cost, nullptr, 0, setting, sizeof setting) == nullptr) {
    throw std::runtime_error("crypt_gensalt_rn failed");
  }
  auto data = std::make_unique<crypt_data>();
  const char* hash = crypt_rn(password.c_str(), setting, data.get(), sizeof(crypt_data));
  if (hash == nullptr || hash[0] == '*') throw std::runtime_error("crypt_rn failed");
  return hash;
}

inline std::filesystem::path write_file(const std::filesystem::path& path,
                                        const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

}  // namespace hdstream::test
