// `hdstream monitor`'s pictures: each row's picture is the JPEG its receiving host served at
// /thumbnail (telemetry/stats_poller fetches them), decoded by Qt once per new one. A host that
// serves something else than a JPEG (or one larger than 256x256) shows the NO SIGNAL slate,
// never a broken picture, and is never decoded at its claimed size.
//   panel.pictures = host_pictures(poller);
#pragma once

#include <memory>

#include "gui/picture_cell.hpp"
#include "telemetry/stats_poller.hpp"

namespace hdstream {

PictureProvider host_pictures(std::shared_ptr<const StatsPoller> poller);

}  // namespace hdstream
