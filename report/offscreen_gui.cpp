#include "report/offscreen_gui.hpp"

#include <QBuffer>

#include <cstdlib>

namespace hdstream {

std::unique_ptr<QGuiApplication> ensure_gui_application() {
  if (QGuiApplication::instance()) return nullptr;
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  static int argc = 1;
  static char name[] = "hdstream";
  static char* argv[] = {name, nullptr};
  return std::make_unique<QGuiApplication>(argc, argv);
}

std::vector<std::byte> png_bytes(const QImage& image) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG")) return {};
  const auto* data = reinterpret_cast<const std::byte*>(bytes.constData());
  return std::vector<std::byte>(data, data + bytes.size());
}

}  // namespace hdstream
