#include "gui/host_pictures.hpp"

#include <map>
#include <string>

#include <QtCore/QBuffer>
#include <QtGui/QImageReader>

namespace hdstream {
namespace {

// A thumbnail is at most 128x72; a host's "JPEG" that claims more than this is not decoded at
// all, so a stranger's small file that declares a huge picture never makes the panel allocate
// for it (a cached picture is at most 256 KiB).
constexpr int kMaxPictureSide = 256;

QImage decode_thumbnail(const std::string& jpeg) {
  QByteArray bytes = QByteArray::fromRawData(jpeg.data(), static_cast<qsizetype>(jpeg.size()));
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::ReadOnly);
  QImageReader reader(&buffer, "JPEG");
  const QSize size = reader.size();
  if (!size.isValid() || size.width() > kMaxPictureSide || size.height() > kMaxPictureSide) {
    return {};
  }
  return reader.read();
}

}  // namespace

PictureProvider host_pictures(std::shared_ptr<const StatsPoller> poller) {
  struct Decoded {
    std::uint64_t seq = 0;  // the poller's pictures start at 1: the first one decodes
    QImage image;
  };
  auto decoded = std::make_shared<std::map<std::string, Decoded>>();  // GUI thread only
  return [poller, decoded](const FeedRow& row) -> std::optional<PanelPicture> {
    const auto picture = poller->picture(row.picture_from, row.stream);
    if (!picture) {
      decoded->erase(row.key);  // the cache holds only pictures that still exist
      return std::nullopt;
    }
    Decoded& cached = (*decoded)[row.key];
    if (cached.seq != picture->seq) {
      cached.seq = picture->seq;
      cached.image = decode_thumbnail(picture->jpeg);
    }
    // Not a JPEG, or not a thumbnail: no picture, the NO SIGNAL slate.
    if (cached.image.isNull()) return std::nullopt;
    return PanelPicture{cached.image, cached.seq};
  };
}

}  // namespace hdstream
