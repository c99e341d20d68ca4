// What report/'s renderers share: a QGuiApplication for text rendering (a command-line run has
// none, so this makes an offscreen one for the caller's scope; nullptr when one exists), and
// the PNG bytes of what they painted.
//   auto app = ensure_gui_application();  ...paint...  return png_bytes(image);
#pragma once

#include <QGuiApplication>
#include <QImage>

#include <cstddef>
#include <memory>
#include <vector>

namespace hdstream {

std::unique_ptr<QGuiApplication> ensure_gui_application();

// Empty when Qt cannot encode it.
std::vector<std::byte> png_bytes(const QImage& image);

}  // namespace hdstream
