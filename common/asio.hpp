// The one way the project includes Boost.Asio.
//   #include "common/asio.hpp"   // then asio::co_spawn(ctx, f(), asio::detached);
#pragma once

// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace hdstream {
namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;

using error_code = boost::system::error_code;

// Completion token for co_await that stores the error in `ec` instead of throwing.
//   error_code ec;  auto n = co_await asio::async_read(s, buf, nothrow(ec));
inline auto nothrow(error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }
}  // namespace hdstream
