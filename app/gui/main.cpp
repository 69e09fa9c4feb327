// fxscope: the desktop app. `fxscope [PATH...]` opens graph files, TorchScript .pt files,
// TORCH_TRACE logs, .fxscope projects or directories given on the command line.
// `--smoke-test` loads them, prints what was read and exits (checks of an installed package).
#include "app/gui/main_window.h"
#include "app/gui/shutdown.h"
#include "app/gui/smoke_test.h"
#include "core/torchscript/torchscript_loader.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    fxs::torchscript::registerLoader(); // File > Open and the command line read .pt files
    QApplication::setOrganizationName(QStringLiteral("fxscope"));
    QApplication::setApplicationName(QStringLiteral("fxscope"));
    QApplication::setApplicationVersion(QStringLiteral(FXSCOPE_VERSION));
    QApplication::setApplicationDisplayName(QStringLiteral("fxscope"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Graph inspector for PyTorch programs (torch.compile graphs, "
                       "TORCH_TRACE logs, TorchScript modules)"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("paths"),
                                 QStringLiteral("Graph files, .pt files, TORCH_TRACE logs, "
                                                ".fxscope projects or directories"),
                                 QStringLiteral("[PATH...]"));
    const QCommandLineOption smokeTest(
        QStringLiteral("smoke-test"),
        QStringLiteral("Load the paths, print what was read and exit (0: read without errors)"));
    parser.addOption(smokeTest);
    parser.process(app);

    int exitCode = 0;
    {
        fxs::app::MainWindow window;
        window.show();
        if (parser.isSet(smokeTest)) {
            exitCode = fxs::app::runSmokeTest(window, parser.positionalArguments());
        } else {
            window.openPaths(parser.positionalArguments());
            exitCode = QApplication::exec();
        }
    } // the window cancels its jobs and waits a bounded time for them
    return fxs::app::finishProcess(exitCode);
}
