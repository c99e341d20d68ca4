// A repaint request a decode worker may make of a window living on the GUI thread: posted, never
// waited for, and coalesced by QPaintDeviceWindow::update().
//   view->attach(repaint_request(window));
#pragma once

#include <functional>

#include <QtCore/QMetaObject>
#include <QtGui/QPaintDeviceWindow>

namespace hdstream {

inline std::function<void()> repaint_request(QPaintDeviceWindow* window) {
  return [window] {
    QMetaObject::invokeMethod(
        window, [window] { window->update(); }, Qt::QueuedConnection);
  };
}

}  // namespace hdstream
