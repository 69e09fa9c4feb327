// Runs fxscope-cli as a user's script would, for the tst_cli_* end-to-end tests: arguments in,
// exit code and captured stdout/stderr out. A run that crashes or times out reports exit -1.
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

namespace fxs::test {

struct CliRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// env: the environment the command runs in (e.g. the system's plus a test variable).
inline CliRun runCli(const QStringList& args, const QProcessEnvironment& env,
                     int timeoutMs = 300000)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(FXSCOPE_CLI_PATH), args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

inline CliRun runCli(const QStringList& args, int timeoutMs = 300000)
{
    return runCli(args, QProcessEnvironment::systemEnvironment(), timeoutMs);
}

} // namespace fxs::test
