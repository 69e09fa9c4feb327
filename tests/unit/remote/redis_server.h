// A throw-away redis-server for one test: a free port on 127.0.0.1, its files in a temporary
// directory, no persistence; killed (or paused, to look like a hung server) on demand and when
// the object goes. Test code only.
#pragma once

#include "core/remote/redis_client.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace fxs::test {

class RedisServer {
public:
    // Empty when Debian's redis-server is not installed.
    static QString executable() { return QStandardPaths::findExecutable("redis-server"); }

    // A port no one listens on now (bound to 0, read back, closed).
    static int freePort()
    {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        ::close(fd);
        return ntohs(a.sin_port);
    }

    ~RedisServer() { kill(); }

    // Starts the server (on `port`, else a free one) and waits (up to 10 s) until it answers.
    // False with `error` otherwise.
    bool start(QString& error, int port = 0)
    {
        m_port = port ? port : freePort();
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(executable(), {"--port", QString::number(m_port), "--bind", "127.0.0.1",
                                       "--save", "", "--appendonly", "no", "--dir", m_dir.path()});
        if (!m_process.waitForStarted(5000)) {
            error = "redis-server did not start: " + m_process.errorString();
            return false;
        }
        for (int i = 0; i < 500; ++i) {
            if (remote::RedisClient::connect(url()).ok()) {
                return true;
            }
            QThread::msleep(20);
        }
        error = "redis-server does not answer: " + QString::fromUtf8(m_process.readAll());
        return false;
    }
    void kill()
    {
        if (m_process.state() != QProcess::NotRunning) {
            ::kill(static_cast<pid_t>(m_process.processId()), SIGCONT);
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    // SIGSTOP: the server keeps its socket but never answers (a hung server).
    void pause() { ::kill(static_cast<pid_t>(m_process.processId()), SIGSTOP); }

    int port() const { return m_port; }
    remote::RedisUrl url() const { return {"127.0.0.1", m_port, 0}; }
    std::string urlText() const { return url().text(); }

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    int m_port = 0;
};

} // namespace fxs::test
