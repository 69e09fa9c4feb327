// Gives fxscope_models and fxscope_views one translation unit each while they grow.
namespace fxs::views {
int viewsAnchor() { return 0; }
} // namespace fxs::views
