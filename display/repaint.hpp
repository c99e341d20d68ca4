// A repaint request a decode worker may make of a window living on the GUI thread: posted, never
// waited for, and coalesced by QPaintDeviceWindow::update().
//   view->attach(repaint_request(window));
//   view->attach(repaint_request(window, [i](MultiviewWindow& w) { w.repaint_tile(i); }));
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

// The same for a part of the window: `repaint` runs on the GUI thread and asks for the part it
// names (a multiview tile), so that one feed's new picture repaints its tile, not the window.
template <typename Window, typename Repaint>
std::function<void()> repaint_request(Window* window, Repaint repaint) {
  return [window, repaint] {
    QMetaObject::invokeMethod(
        window, [window, repaint] { repaint(*window); }, Qt::QueuedConnection);
  };
}

}  // namespace hdstream
