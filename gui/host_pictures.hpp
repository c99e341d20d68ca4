// `hdstream monitor`'s pictures: each row's picture is the JPEG its receiving host served at
// /thumbnail (telemetry/stats_poller fetches them), decoded by Qt once per new one. A host that
// serves something else than a JPEG shows the NO SIGNAL slate, never a broken picture.
//   panel.pictures = host_pictures(poller);
#pragma once

#include <memory>

#include "gui/picture_cell.hpp"
#include "telemetry/stats_poller.hpp"

namespace hdstream {

PictureProvider host_pictures(std::shared_ptr<const StatsPoller> poller);

}  // namespace hdstream
