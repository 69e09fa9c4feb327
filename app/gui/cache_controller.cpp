#include "app/gui/cache_controller.h"

#include "core/explain/explainer.h"
#include "views/panels/cache_panel.h"

namespace fxs::app {

CacheController::CacheController(views::CachePanel* panel, QObject* parent)
    : QObject(parent), m_panel(panel)
{
    connect(panel, &views::CachePanel::explanationRequested, this, &CacheController::explain);
    connect(panel, &views::CachePanel::lookupExplanationRequested, this,
            &CacheController::explainLookup);
}

void CacheController::explain(const views::ExplainRequest& request)
{
    const views::RunPtr a = request.a;
    const views::RunPtr b = request.b;
    auto work = [a, b](const CancelToken& cancel, const ProgressSink&) {
        if (!b) {
            return Result<explain::Explanation>(explain::Explanation{});
        }
        return a ? explain::explainRuns(*a, *b, cancel) : explain::explainWithin(*b, cancel);
    };
    const std::size_t lookups = (b ? b->lookups.size() : 0) + (a ? a->lookups.size() : 0);
    if (!b || (m_threshold > 0 && lookups <= std::size_t(m_threshold))) {
        m_jobs.abandon(); // an older background request must not land after this answer
        m_panel->setExplanation(work(CancelToken::none(), {}));
        return;
    }
    m_jobs.start(std::move(work), [this](Result<explain::Explanation> result) {
        if (m_panel) {
            m_panel->setExplanation(std::move(result));
        }
    });
}

void CacheController::explainLookup(const views::LookupExplainRequest& request)
{
    if (request.lookup != nullptr) {
        m_panel->setLookupExplanation(
            explain::explainLookup(*request.lookup, request.partner, request.partnerName));
    }
}

} // namespace fxs::app
