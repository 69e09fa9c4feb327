// A hostile Redis look-alike for one test, on a free loopback port, served from a thread of the
// test process: it reads commands (RESP arrays) and answers them the way a broken or malicious
// server would — trickling a reply one byte at a time forever, or answering SCAN with a cursor
// that never returns to 0, or flooding a reply that declares a gigabyte or 2^31 values. For the
// client's whole-operation deadlines and reply limits. Test code only.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace fxs::test {

class FakeRedisServer {
public:
    enum class Mode {
        Trickle,      // every reply: a bulk string header, then one byte per 200 ms, forever
        EndlessScan,  // SCAN: cursor "1" and the same key forever; other commands: nil / OK
        Flood,        // every reply: a 1 GB bulk string header, then bytes as fast as they go
        HugeArray,    // every reply: an array declaring 2^31 - 1 elements, then integers fast
    };

    explicit FakeRedisServer(Mode mode) : m_mode(mode) {}
    ~FakeRedisServer() { stop(); }
    FakeRedisServer(const FakeRedisServer&) = delete;
    FakeRedisServer& operator=(const FakeRedisServer&) = delete;

    // Listens on 127.0.0.1 (a free port); false when the socket cannot be set up.
    bool start()
    {
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
            ::listen(m_listen, 16) != 0 ||
            ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
            return false;
        }
        m_port = ntohs(a.sin_port);
        m_acceptor = std::thread([this] { acceptLoop(); });
        return true;
    }
    void stop()
    {
        m_stop = true;
        if (m_acceptor.joinable()) {
            m_acceptor.join();
        }
        for (auto& t : m_clients) {
            t.join();
        }
        m_clients.clear();
        if (m_listen >= 0) {
            ::close(m_listen);
            m_listen = -1;
        }
    }
    int port() const { return m_port; }
    std::string urlText() const { return "redis://127.0.0.1:" + std::to_string(m_port); }
    // SCAN rounds answered so far (EndlessScan).
    int scans() const { return m_scans; }
    // Reply bytes sent so far (Flood, HugeArray).
    std::size_t sent() const { return m_sent; }

private:
    Mode m_mode;
    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_scans{0};
    std::atomic<std::size_t> m_sent{0};
    std::thread m_acceptor;
    std::vector<std::thread> m_clients;

    bool readable(int fd, int ms)
    {
        pollfd p{fd, POLLIN, 0};
        return ::poll(&p, 1, ms) > 0;
    }
    void acceptLoop()
    {
        while (!m_stop) {
            if (!readable(m_listen, 50)) {
                continue;
            }
            const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0) {
                m_clients.emplace_back([this, fd] {
                    serve(fd);
                    ::close(fd);
                });
            }
        }
    }
    // Next complete command in buf (a RESP array of bulk strings), removed from buf; its name
    // upper-cased. Empty when none is complete yet.
    static std::string takeCommand(std::string& buf)
    {
        if (buf.empty() || buf[0] != '*') {
            buf.clear();
            return {};
        }
        std::size_t pos = buf.find("\r\n");
        if (pos == std::string::npos) {
            return {};
        }
        const int n = std::stoi(buf.substr(1, pos - 1));
        pos += 2;
        std::string name;
        for (int i = 0; i < n; ++i) {
            const std::size_t end = buf.find("\r\n", pos);
            if (end == std::string::npos || buf[pos] != '$') {
                return {};
            }
            const std::size_t len = std::stoul(buf.substr(pos + 1, end - pos - 1));
            if (buf.size() < end + 2 + len + 2) {
                return {};
            }
            if (i == 0) {
                name = buf.substr(end + 2, len);
            }
            pos = end + 2 + len + 2;
        }
        buf.erase(0, pos);
        for (auto& c : name) {
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
        return name;
    }
    bool send(int fd, const std::string& s)
    {
        return ::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
    }
    void serve(int fd)
    {
        std::string buf;
        char chunk[4096];
        while (!m_stop) {
            if (!readable(fd, 50)) {
                continue;
            }
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0) {
                return;
            }
            buf.append(chunk, static_cast<std::size_t>(n));
            for (std::string cmd = takeCommand(buf); !cmd.empty(); cmd = takeCommand(buf)) {
                if (!answer(fd, cmd)) {
                    return;
                }
            }
        }
    }
    bool answer(int fd, const std::string& cmd)
    {
        if (m_mode == Mode::Trickle) {
            if (!send(fd, "$1000000000\r\n")) {
                return false;
            }
            while (!m_stop) { // until the client gives up and closes
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
                if (!send(fd, "x")) {
                    return false;
                }
            }
            return false;
        }
        if (m_mode == Mode::Flood || m_mode == Mode::HugeArray) {
            const bool flood = m_mode == Mode::Flood;
            if (!send(fd, flood ? "$1000000000\r\n" : "*2147483647\r\n")) {
                return false;
            }
            std::string chunk;
            for (int i = 0; i < 16384; ++i) {
                chunk += flood ? "xxxx" : ":1\r\n";
            }
            while (!m_stop && send(fd, chunk)) { // until the client gives up and closes
                m_sent += chunk.size();
            }
            return false;
        }
        if (cmd == "SCAN") {
            ++m_scans;
            const std::string key = "fxscope:meta:" + std::string(64, '0');
            return send(fd, "*2\r\n$1\r\n1\r\n*1\r\n$" + std::to_string(key.size()) + "\r\n" +
                                key + "\r\n");
        }
        if (cmd == "GET") {
            return send(fd, "$-1\r\n");
        }
        if (cmd == "MGET") {
            return send(fd, "*0\r\n");
        }
        return send(fd, "+OK\r\n");
    }
};

} // namespace fxs::test
