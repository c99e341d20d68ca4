// The operator's cuts on real Qt windows (offscreen platform): keys 0-9 and clicks on the
// multiview's tiles and on the panel's rows reach the program output; a key for a feed that does
// not exist changes nothing.
#include <gtest/gtest.h>

#include <QtGui/QGuiApplication>
#include <QtGui/QScreen>
#include <QtTest/QTest>
#include <QtWidgets/QApplication>
#include <QtWidgets/QTableWidget>

#include "display/multiview_window.hpp"
#include "display/program.hpp"
#include "gui/panel_window.hpp"

namespace hdstream {
namespace {

class ProgramCut : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static int argc = 1;
    static char name[] = "program_cut_test";
    static char* argv[] = {name, nullptr};
    qputenv("QT_QPA_PLATFORM", "offscreen");  // real widgets and windows, no display needed
    app_ = new QApplication(argc, argv);
  }
  static QApplication* app_;
};
QApplication* ProgramCut::app_ = nullptr;

TEST_F(ProgramCut, KeysAndClicksOnTheMultiviewCutTheProgram) {
  Program program(3);
  std::vector<std::shared_ptr<FeedView>> views;
  for (std::uint16_t stream = 0; stream < 3; ++stream) {
    views.push_back(std::make_shared<FeedView>(stream));
  }
  MultiviewWindow window(QGuiApplication::primaryScreen(), Grid{2, 2}, views, nullptr, &program);
  window.show_in(Rect{0, 0, 800, 450});
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QTest::keyClick(&window, Qt::Key_2);
  EXPECT_EQ(program.on_air(), 2);
  QTest::keyClick(&window, Qt::Key_0);
  EXPECT_EQ(program.on_air(), 0);
  QTest::keyClick(&window, Qt::Key_2);
  EXPECT_EQ(program.on_air(), 2);
  QTest::keyClick(&window, Qt::Key_7);  // no feed 7: stays on 2
  EXPECT_EQ(program.on_air(), 2);
  QTest::keyClick(&window, Qt::Key_A);
  EXPECT_EQ(program.on_air(), 2);
  // 2x2 over 800x450: the top-right tile is feed 1, the bottom-left feed 2.
  QTest::mouseClick(&window, Qt::LeftButton, {}, QPoint(600, 100));
  EXPECT_EQ(program.on_air(), 1);
  QTest::mouseClick(&window, Qt::LeftButton, {}, QPoint(200, 330));
  EXPECT_EQ(program.on_air(), 2);
  QTest::mouseClick(&window, Qt::LeftButton, {}, QPoint(600, 330));  // the empty fourth cell
  EXPECT_EQ(program.on_air(), 2);
}

TEST_F(ProgramCut, KeysAndRowClicksOnThePanelPickAFeed) {
  std::vector<int> picked;
  const auto snapshot = [](double now_s) {
    Snapshot s;
    s.role = Role::recv;
    s.t = now_s;
    for (std::uint16_t stream = 0; stream < 3; ++stream) {
      StreamSnapshot feed;
      feed.stream = stream;
      feed.state = StreamState::running;
      s.streams.push_back(feed);
    }
    return std::vector<PanelInput>{PanelInput{LabeledSnapshot{"host", "127.0.0.1:9000", s}, now_s}};
  };
  PanelWindow panel("cut test", snapshot);
  panel.set_on_select([&picked](int stream) { picked.push_back(stream); });
  panel.refresh();
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  QTest::keyClick(&panel, Qt::Key_1);
  ASSERT_EQ(panel.table_for_test()->rowCount(), 4);  // three feeds and the "All" row
  const auto click_row = [&](int row) {
    const QRect rect =
        panel.table_for_test()->visualItemRect(panel.table_for_test()->item(row, kColumnFeed));
    QTest::mouseClick(panel.table_for_test()->viewport(), Qt::LeftButton, {}, rect.center());
  };
  click_row(2);
  click_row(3);  // the aggregate row is no feed
  EXPECT_EQ(picked, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace hdstream
