// Cancellation and progress for long synchronous core work. Core APIs take these; the app
// runs them on worker threads and flips the token from the GUI thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string_view>

namespace fxs {

// Shared, thread-safe flag. Copies observe the same flag. Default-constructed tokens can be
// cancelled too; use CancelToken::none() where the caller never cancels.
class CancelToken {
public:
    CancelToken() : m_flag(std::make_shared<std::atomic<bool>>(false)) {}
    void cancel() const { m_flag->store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return m_flag->load(std::memory_order_relaxed); }
    static CancelToken none() { return CancelToken(); }

private:
    std::shared_ptr<std::atomic<bool>> m_flag;
};

// Receives progress in [0, 1] and a short phase label. Called on the worker thread; must be
// cheap and thread-safe. An empty sink is allowed.
using ProgressSink = std::function<void(double fraction, std::string_view phase)>;

inline void reportProgress(const ProgressSink& sink, double fraction, std::string_view phase)
{
    if (sink) {
        sink(fraction, phase);
    }
}

} // namespace fxs
