#include "app/cli/interrupt.h"

#include <csignal>

namespace fxs::cli {
namespace {

// Set before the handlers are installed and never destroyed: the handler only reads it.
const CancelToken* g_token = nullptr;

extern "C" void onInterrupt(int)
{
    g_token->cancel(); // one relaxed atomic store: safe in a signal handler
}

} // namespace

const CancelToken& interruptToken()
{
    static const CancelToken* token = [] {
        g_token = new CancelToken();
        struct sigaction action = {};
        action.sa_handler = onInterrupt;
        action.sa_flags = SA_RESETHAND; // a second signal takes the default action
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, nullptr);
        sigaction(SIGTERM, &action, nullptr);
        return g_token;
    }();
    return *token;
}

} // namespace fxs::cli
