// A real X server for display tests: Xvfb with the screens asked for (separate X screens, as a
// machine with one card per projector has), and screenshots of them through Xlib (XGetImage on
// each screen's root window), read pixel by pixel.
//   test::XServer x({"1280x720", "1024x768"}, dir);      // :N.0 and :N.1
//   const auto shot = x.capture(1);  shot.at(512, 384)   // {r, g, b}
#pragma once

#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/process.hpp"

namespace hdstream::test {

struct Rgb {
  int r = 0, g = 0, b = 0;
};

struct Screenshot {
  int width = 0;
  int height = 0;
  std::vector<Rgb> pixels;
  Rgb at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
};

// Within `tolerance` of each channel: scaling and YUV -> RGB round each sample a little.
inline bool near(Rgb got, Rgb want, int tolerance = 24) {
  return std::abs(got.r - want.r) <= tolerance && std::abs(got.g - want.g) <= tolerance &&
         std::abs(got.b - want.b) <= tolerance;
}

inline std::string to_string(Rgb c) {
  return "(" + std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + ")";
}

class XServer {
 public:
  // `screens`: "WIDTHxHEIGHT" each, depth 24. Xvfb picks a free display number (-displayfd).
  XServer(const std::vector<std::string>& screens, const std::filesystem::path& dir) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);  // Xvfb inherits only the end it writes its number to
    std::vector<std::string> args{"/usr/bin/Xvfb", "-displayfd", std::to_string(fds[1]),
                                  "-nolisten",     "tcp",        "-noreset"};
    for (std::size_t i = 0; i < screens.size(); ++i) {
      args.insert(args.end(), {"-screen", std::to_string(i), screens[i] + "x24"});
    }
    server_ = std::make_unique<Process>(args, dir, "xvfb");
    ::close(fds[1]);
    std::string number;
    char c;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') number += c;
    ::close(fds[0]);
    if (number.empty()) throw std::runtime_error("Xvfb did not start: " + server_->err());
    name_ = ":" + number;
    display_ = XOpenDisplay(name_.c_str());
    if (!display_) throw std::runtime_error("cannot open " + name_);
  }
  ~XServer() {
    if (display_) XCloseDisplay(display_);
    server_->signal(SIGTERM);
    server_->wait(std::chrono::seconds(10));
  }
  XServer(const XServer&) = delete;
  XServer& operator=(const XServer&) = delete;

  // "DISPLAY=:N" for the processes under test.
  std::string environment() const { return "DISPLAY=" + name_; }

  Screenshot capture(int screen) const {
    const Window root = RootWindow(display_, screen);
    XWindowAttributes attributes;
    XGetWindowAttributes(display_, root, &attributes);
    XImage* image = XGetImage(display_, root, 0, 0, static_cast<unsigned>(attributes.width),
                              static_cast<unsigned>(attributes.height), AllPlanes, ZPixmap);
    Screenshot shot{attributes.width, attributes.height, {}};
    shot.pixels.reserve(static_cast<std::size_t>(shot.width) * shot.height);
    for (int y = 0; y < shot.height; ++y) {
      for (int x = 0; x < shot.width; ++x) {
        const unsigned long pixel = XGetPixel(image, x, y);
        shot.pixels.push_back(Rgb{static_cast<int>((pixel >> 16) & 0xff),
                                  static_cast<int>((pixel >> 8) & 0xff),
                                  static_cast<int>(pixel & 0xff)});
      }
    }
    XDestroyImage(image);
    return shot;
  }

 private:
  std::unique_ptr<Process> server_;
  std::string name_;
  Display* display_ = nullptr;
};

}  // namespace hdstream::test
