// Text rendering needs a QGuiApplication; a command-line run has none, so this makes an
// offscreen one for the caller's scope (nullptr when one exists). For report/'s renderers only.
//   auto app = ensure_gui_application();  // then paint
#pragma once

#include <QGuiApplication>

#include <memory>

namespace hdstream {

std::unique_ptr<QGuiApplication> ensure_gui_application();

}  // namespace hdstream
