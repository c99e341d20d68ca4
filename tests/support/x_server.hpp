// A real X server for display tests: Xvfb with separate X screens, or Xorg's dummy driver with
// several RandR monitors on one X screen, and screenshots of them through Xlib (XGetImage on
// each screen's root window), read pixel by pixel.
//   auto x = test::XServer::xvfb({"1280x720", "1024x768"}, dir);   // :N.0 and :N.1
//   const auto shot = x->capture(1);  shot.at(512, 384)              // {r, g, b}
#pragma once

#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
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
  // Xvfb with separate X screens, "WIDTHxHEIGHT" each, depth 24 (:N.0, :N.1, ...).
  static std::unique_ptr<XServer> xvfb(const std::vector<std::string>& screens,
                                       const std::filesystem::path& dir) {
    std::vector<std::string> args{"/usr/bin/Xvfb", "-nolisten", "tcp", "-noreset"};
    for (std::size_t i = 0; i < screens.size(); ++i) {
      args.insert(args.end(), {"-screen", std::to_string(i), screens[i] + "x24"});
    }
    return std::make_unique<XServer>(args, dir);
  }

  // One X screen with a RandR monitor per "WIDTHxHEIGHT", side by side from x = 0 (Xorg's dummy
  // driver: outputs DUMMY0, DUMMY1, ... set with xrandr), as one graphics card driving several
  // projectors. Null when Xorg's dummy driver or xrandr is not installed.
  static std::unique_ptr<XServer> xorg_dummy(const std::vector<std::string>& monitors,
                                             const std::filesystem::path& dir) {
    if (!std::filesystem::exists("/usr/lib/xorg/modules/drivers/dummy_drv.so") ||
        !std::filesystem::exists("/usr/bin/xrandr")) {
      return nullptr;
    }
    // A monitor section accepting any timing, with a reduced-blanking mode line per size asked.
    std::ostringstream conf;
    conf << "Section \"Monitor\"\n  Identifier \"monitor\"\n  HorizSync 5.0-1000.0\n"
            "  VertRefresh 5.0-200.0\n  Option \"ReducedBlanking\" \"true\"\n";
    for (const auto& size : monitors) {
      const int width = std::stoi(size), height = std::stoi(size.substr(size.find('x') + 1));
      const int h_total = width + 160, v_total = height + 30;
      conf << "  Modeline \"" << size << "\" " << h_total * v_total * 60 / 1e6 << " " << width
           << " " << width + 48 << " " << width + 80 << " " << h_total << " " << height << " "
           << height + 3 << " " << height + 8 << " " << v_total << " +hsync -vsync\n";
    }
    conf << "EndSection\n"
            "Section \"Device\"\n  Identifier \"dummy\"\n  Driver \"dummy\"\n"
            "  VideoRam 256000\nEndSection\n"
            "Section \"Screen\"\n  Identifier \"screen\"\n  Device \"dummy\"\n"
            "  Monitor \"monitor\"\n  DefaultDepth 24\n  SubSection \"Display\"\n"
            "    Depth 24\n    Virtual 4096 2160\n  EndSubSection\nEndSection\n"
            "Section \"ServerFlags\"\n  Option \"AutoAddDevices\" \"false\"\nEndSection\n";
    const auto config = dir / "xorg.conf";
    std::ofstream(config) << conf.str();
    auto server = std::make_unique<XServer>(
        std::vector<std::string>{"/usr/lib/xorg/Xorg", "-config", config.string(), "-noreset",
                                 "-nolisten", "tcp", "-logfile", (dir / "xorg.log").string()},
        dir);
    // The modes exist on the first output only: add each to its output, then place them.
    auto run_xrandr = [&](std::vector<std::string> args) {
      args.insert(args.begin(), "/usr/bin/xrandr");
      Process xrandr(args, dir, "xrandr", {server->environment()});
      if (xrandr.wait(std::chrono::seconds(30)) != 0) {
        throw std::runtime_error("xrandr could not set the monitors up: " + xrandr.err());
      }
    };
    std::vector<std::string> place;
    for (std::size_t i = 0; i < monitors.size(); ++i) {
      const std::string output = "DUMMY" + std::to_string(i);
      if (i > 0) run_xrandr({"--addmode", output, monitors[i]});
      place.insert(place.end(), {"--output", output, "--mode", monitors[i]});
      if (i > 0) place.insert(place.end(), {"--right-of", "DUMMY" + std::to_string(i - 1)});
    }
    run_xrandr(place);
    return server;
  }

  // Starts `args` with -displayfd: the server picks a free display number and reports it.
  XServer(std::vector<std::string> args, const std::filesystem::path& dir) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);  // the server inherits only the end it writes to
    args.insert(args.end(), {"-displayfd", std::to_string(fds[1])});
    server_ = std::make_unique<Process>(args, dir, std::filesystem::path(args[0]).filename());
    ::close(fds[1]);
    std::string number;
    char c;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') number += c;
    ::close(fds[0]);
    if (number.empty()) throw std::runtime_error(args[0] + " did not start: " + server_->err());
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

  // One pixel, read alone: fast enough to poll a cut frame by frame.
  Rgb pixel(int screen, int x, int y) const {
    XImage* image =
        XGetImage(display_, RootWindow(display_, screen), x, y, 1, 1, AllPlanes, ZPixmap);
    const unsigned long value = XGetPixel(image, 0, 0);
    XDestroyImage(image);
    return Rgb{static_cast<int>((value >> 16) & 0xff), static_cast<int>((value >> 8) & 0xff),
               static_cast<int>(value & 0xff)};
  }

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
