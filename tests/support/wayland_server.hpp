// A real Wayland compositor for display tests: weston 10, headless (pixman, no GPU), and its
// screenshots (weston-screenshooter, which weston serves with --debug) read pixel by pixel.
// Weston's headless backend makes one output; several outputs are a nested weston (its
// wayland backend, --output-count) inside a headless one, side by side from x = 0.
//   auto wl = test::Weston::start({{1280, 720}, {800, 600}}, dir);   // null: weston missing
//   test::Process app(args, dir, "app", wl->environment());
//   const test::Screenshot shot = wl->capture();   shot.at(1280 + 400, 300)   // {r, g, b}
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <QtGui/QImage>

#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/x_server.hpp"  // Rgb, Screenshot

namespace hdstream::test {

class Weston {
 public:
  static std::unique_ptr<Weston> start(const std::vector<std::pair<int, int>>& outputs,
                                       const std::filesystem::path& dir) {
    if (!std::filesystem::exists("/usr/bin/weston") ||
        !std::filesystem::exists("/usr/bin/weston-screenshooter")) {
      return nullptr;
    }
    return std::unique_ptr<Weston>(new Weston(outputs, dir));
  }

  ~Weston() {
    for (auto it = servers_.rbegin(); it != servers_.rend(); ++it) {
      (*it)->signal(SIGTERM);
      (*it)->wait(std::chrono::seconds(10));
    }
  }
  Weston(const Weston&) = delete;
  Weston& operator=(const Weston&) = delete;

  // For the processes under test: Qt's wayland platform on this compositor.
  std::vector<std::string> environment() const {
    return {"WAYLAND_DISPLAY=" + socket_, "XDG_RUNTIME_DIR=" + runtime_dir_.string(),
            "QT_QPA_PLATFORM=wayland"};
  }

  // Every output, side by side from x = 0 (an output shorter than the tallest leaves the rest
  // of its column transparent, read as black). Throws std::runtime_error when the screenshot
  // fails (a poll may simply try again).
  Screenshot capture() const {
    const auto shots = dir_ / "screenshots";
    std::filesystem::remove_all(shots);
    std::filesystem::create_directories(shots);
    // weston-screenshooter writes wayland-screenshot-<time>.png into its working directory and
    // spins if an output never repaints: `timeout` bounds it.
    Process shooter({"/bin/sh", "-c",
                     "cd '" + shots.string() + "' && exec timeout -s KILL 10 weston-screenshooter"},
                    dir_, "screenshooter", environment());
    if (shooter.wait(std::chrono::seconds(15)) != 0) {
      throw std::runtime_error("weston-screenshooter failed: " + shooter.err());
    }
    for (const auto& entry : std::filesystem::directory_iterator(shots)) {
      const QImage image = QImage(QString::fromStdString(entry.path().string()))
                               .convertToFormat(QImage::Format_RGB32);
      if (image.isNull()) break;
      Screenshot shot;
      shot.width = image.width();
      shot.height = image.height();
      shot.pixels.reserve(static_cast<std::size_t>(shot.width) * shot.height);
      for (int y = 0; y < shot.height; ++y) {
        const auto* row = reinterpret_cast<const QRgb*>(image.constScanLine(y));
        for (int x = 0; x < shot.width; ++x) {
          shot.pixels.push_back(Rgb{qRed(row[x]), qGreen(row[x]), qBlue(row[x])});
        }
      }
      return shot;
    }
    throw std::runtime_error("weston-screenshooter wrote no picture: " + shooter.err());
  }

 private:
  Weston(const std::vector<std::pair<int, int>>& outputs, const std::filesystem::path& dir)
      : dir_(dir), runtime_dir_(dir / "xdg"), socket_("hdstream-wl-" + std::to_string(::getpid())) {
    std::filesystem::create_directories(runtime_dir_);
    ::chmod(runtime_dir_.c_str(), 0700);  // Wayland refuses a runtime directory others can read
    // No panel and no screen lock: the outputs show only what the test puts there.
    std::ofstream ini(dir / "weston.ini");
    ini << "[core]\nidle-time=0\n[shell]\nlocking=false\npanel-position=none\n";
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      // The wayland backend takes [output] sections whose names start with "WL".
      ini << "[output]\nname=WL" << i + 1 << "\nmode=" << outputs[i].first << "x"
          << outputs[i].second << "\n";
    }
    ini.close();
    const std::vector<std::string> env{"XDG_RUNTIME_DIR=" + runtime_dir_.string()};
    const std::string config = "--config=" + (dir / "weston.ini").string();
    if (outputs.size() == 1) {
      launch({"/usr/bin/weston", "--backend=headless-backend.so", "--use-pixman",
              "--width=" + std::to_string(outputs[0].first),
              "--height=" + std::to_string(outputs[0].second), "--socket=" + socket_, "--debug",
              config},
             env, socket_, "weston");
      return;
    }
    int width = 0, height = 0;
    for (const auto& [w, h] : outputs) {
      width += w;
      height = std::max(height, h);
    }
    const std::string outer = socket_ + "-outer";
    launch({"/usr/bin/weston", "--backend=headless-backend.so", "--use-pixman",
            "--width=" + std::to_string(width + 64), "--height=" + std::to_string(height + 64),
            "--socket=" + outer, "--idle-time=0", "--no-config"},
           env, outer, "weston-outer");
    launch({"/usr/bin/weston", "--backend=wayland-backend.so", "--use-pixman",
            "--output-count=" + std::to_string(outputs.size()), config, "--socket=" + socket_,
            "--debug"},
           {env[0], "WAYLAND_DISPLAY=" + outer}, socket_, "weston-nested");
  }

  void launch(std::vector<std::string> args, const std::vector<std::string>& env,
              const std::string& socket, const std::string& name) {
    servers_.push_back(std::make_unique<Process>(std::move(args), dir_, name, env));
    Process& server = *servers_.back();
    if (!eventually([&] { return std::filesystem::exists(runtime_dir_ / socket); },
                    std::chrono::seconds(20))) {
      throw std::runtime_error(name + " did not start: " + server.err());
    }
  }

  std::filesystem::path dir_;
  std::filesystem::path runtime_dir_;
  std::string socket_;
  std::vector<std::unique_ptr<Process>> servers_;
};

}  // namespace hdstream::test
