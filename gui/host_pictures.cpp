#include "gui/host_pictures.hpp"

#include <map>
#include <string>

namespace hdstream {

PictureProvider host_pictures(std::shared_ptr<const StatsPoller> poller) {
  struct Decoded {
    std::uint64_t seq = 0;
    QImage image;
  };
  auto decoded = std::make_shared<std::map<std::string, Decoded>>();  // GUI thread only
  return [poller, decoded](const FeedRow& row) -> std::optional<PanelPicture> {
    for (const HostStatus& host : poller->latest()) {
      if (host.address.to_string() != row.picture_from) continue;
      const auto found = host.pictures.find(row.stream);
      if (found == host.pictures.end()) return std::nullopt;
      Decoded& cached = (*decoded)[row.key];
      if (cached.seq != found->second.seq) {  // seq starts at 1: the first one decodes
        cached.seq = found->second.seq;
        cached.image = QImage::fromData(reinterpret_cast<const uchar*>(found->second.jpeg.data()),
                                        static_cast<int>(found->second.jpeg.size()), "JPEG");
      }
      // Not a JPEG (a stranger's bytes): no picture, the NO SIGNAL slate.
      if (cached.image.isNull()) return std::nullopt;
      return PanelPicture{cached.image, cached.seq};
    }
    return std::nullopt;
  };
}

}  // namespace hdstream
