// SPDX-License-Identifier: BSD-3-Clause
// Processor selection under a total processing power budget: the scheduler
// offers a TPP and the powers of its free processors; the application picks which to add
// and maps the grown grid. Global, Local, Mixed as in the thesis, plus Adaptive, the
// thesis's own future work (§6.5): whichever predicts the shorter time, counting the data
// each choice has to move (exactly, through redist's plan). Pure, no MPI.
#pragma once

#include <string>
#include <vector>

#include "malleable/gridmap/hetero.hpp"
#include "malleable/gridmap/movement.hpp"

namespace gridmap {

enum class SelectionStrategy { Global, Local, Mixed, Adaptive };
std::string to_string(SelectionStrategy s);
SelectionStrategy parse_selection_strategy(const std::string& text);

// Adaptive's prediction: iterations * seconds_per_unit * iteration_time()
//                        + seconds_per_element * (elements the busiest process sends or receives).
struct AdaptiveCost {
  double iterations = 100;           // iterations until the next resize point
  double seconds_per_unit = 1e-6;    // seconds per unit of HeteroMapping::iteration_time()
  double seconds_per_element = 1e-8; // per element through one process's link (switched network)
};

// How Global shapes the grid for its processor count P.
enum class GlobalGrid {
  Squarest,  // the squarest p x q with p*q = P, as the thesis's runs (5x2, 2x4, 1x11 for a prime)
  Search     // every admitted p x q with p*q = P, best iteration time (search_topology)
};

// Global's replacement step (§6.3.1.1).
enum class ReplacementRule {
  // Beyond the thesis: an under-used new processor is replaced or the slowest new one
  // dropped, the freed budget refilled with 0..4 processors; rounds are kept only while the
  // iteration gets shorter.
  Improving,
  // As the thesis ran it (Tables 6.8-6.10): one round; every new processor with U below
  // `underuse` is replaced by the slowest offered processor that reaches its T_opt ("284
  // with 66"); the budget left is refilled fastest first, except that a refill whose grid
  // would be a single row or column is replaced by one more processor, each near an equal
  // share of the budget ("two processors (95 and 114) instead of one, to avoid a 7 x 1
  // grid"), then by fewer. The greedy first fill may still give 1 x P (Table 6.17's 1 x 11).
  Thesis
};

struct SelectionOptions {
  HeteroOptions mapping;
  GlobalGrid global_grid = GlobalGrid::Squarest;
  // Grids Global may choose. Under the T_Th measure a 1 x P grid is always perfectly
  // balanced (it ignores communication), so Search without a constraint picks 1 x P.
  AspectRatio aspect = AspectRatio::any();
  bool replacement = true;  // Global's replacement step for under-used new processors
  ReplacementRule replacement_rule = ReplacementRule::Improving;
  double underuse = 0.9;     // "under-used": utilisation U_ij below this
  AdaptiveCost cost;
  int element_bytes = 8;

  // The thesis's own rules: HeteroOptions::thesis() sizing, ReplacementRule::Thesis, and
  // Local's fastest proc_max line (§6.3.1, the only rule Local has).
  static SelectionOptions thesis();
};

struct Selection {
  SelectionStrategy strategy = SelectionStrategy::Global;  // Adaptive reports its pick
  std::vector<int> chosen;     // indices into the free list, in new-process id order
  double tpp_used = 0;         // sum of the chosen powers
  HeteroMapping mapping;       // ids: 0..P-1 the current processes, P+k the k-th chosen
  Movement movement;           // current layout -> new layout, exact
  double predicted_seconds = 0;
  std::string notes;
};

// `current` is the running mapping (its ids are the current processes' ranks 0..P-1 and
// its sizes the current block layout). Throws gridmap::Error for TPP <= 0, TPP below every
// offered processor, an empty free list, or non-positive powers.
Selection select_processors(const HeteroMapping& current, const ProcessorPowers& free_powers,
                            double tpp, SelectionStrategy strategy,
                            const SelectionOptions& options = {});

// Global, Local and Mixed side by side (the rows of Tables 6.7 and 6.17), then Adaptive's
// pick as the last element.
std::vector<Selection> compare_selections(const HeteroMapping& current,
                                          const ProcessorPowers& free_powers, double tpp,
                                          const SelectionOptions& options = {});

}  // namespace gridmap
