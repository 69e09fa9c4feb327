// Putting the runs of several TORCH_TRACE files together (a rank folder's logs) and the ranks of
// their records. Internal to core/io: the readers use it after io::planDirectory said which
// files make one run; not for comparing runs (explain/ and diagnose/ do that).
#pragma once

#include "core/model/run.h"

#include <set>

namespace fxs::io::detail {

// Appends from's records, counts and files to into (lookups renamed to into's path).
void mergeRun(model::Run& into, model::Run&& from);

// The ranks the run's envelopes name (records without a rank left out).
std::set<int> envelopeRanks(const model::Run& run);

// Gives rank to every record of the run that has none (logged before init_process_group).
void assignMissingRank(model::Run& run, int rank);

} // namespace fxs::io::detail
