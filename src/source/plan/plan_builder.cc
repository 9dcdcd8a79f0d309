// BuildPlan: for each kernel entry, walks the code index's call graph (instantiated, with core
// types and AIV roles), decides per site, names the labels (seed 000 steps 1-3) and tops up
// plain loops until each core type reaches the density target. The steps: plan_builder.h.
#include "source/plan/plan_builder.h"

#include "source/lexer/include_tree.h"

#include <set>

namespace optrace::source {
using plan_steps::Builder;
using plan_steps::CallGraph;
using plan_steps::FunctionDef;

namespace plan_steps {

void Builder::AddKernel(const FunctionDef& kernel) {
  CallGraph built;
  const CallGraph* shared = nullptr;
  if (graphs_)
    for (const CallGraph& x : *graphs_)
      if (x.root().inst.fn == &kernel) shared = &x;
  if (!shared) built = CallGraph::Build(index_, kernel);
  const CallGraph& g = shared ? *shared : built;
  PlanKernel pk;
  pk.entry = kernel.file->rel;
  pk.function = kernel.name;
  pk.line = kernel.line;
  pk.cores = g.kernel_type().cores;
  pk.core_source = g.kernel_type().declared ? g.kernel_type().task_type : "inferred: " + g.kernel_type().evidence;
  kernel_ = static_cast<int>(plan_.kernels.size());
  kernel_words_ = NameWords(kernel.name);
  kernel_name_ = kernel.name;
  int root = FunctionSite(kernel);
  info_[static_cast<size_t>(root)].root = true;
  Touch(root, pk.cores, "", false, "");
  pk.root.site = root;
  pk.root.cores = pk.cores;
  std::vector<const FunctionDef*> stack{&kernel};
  path_ = {kernel.name};
  plan_.sites[static_cast<size_t>(root)].path = kernel.name;
  Expand(g, 0, pk.root, stack, false);
  if (g.truncated())
    plan_.notes.push_back(fmt::format("{}: the call graph of {} was cut at {} nodes; deeper calls are not planned",
                                      kernel.file->rel, kernel.name, g.nodes().size()));
  plan_.kernels.push_back(std::move(pk));
}

void Builder::Finish() {
  for (PlanKernel& k : plan_.kernels) {
    bool split = false;
    ForEach(k.root, [&](const PlanNode& n) {
      if (n.cores == kPlanAic || n.cores == kPlanAiv) split = true;
    });
    k.split = split && k.cores == 3;
  }
  Decide();
  Label();
  for (size_t k = 0; k < plan_.kernels.size(); ++k) {
    TopUp(k);
    std::set<std::string> aic, aiv;
    Count(plan_.kernels[k], &aic, &aiv);
    TrimDown(k);
    MarkDensitySensitive(k, aic.size(), aiv.size());
  }
  // A later merge (past the hard maximum) may have taken the file's last range after all.
  std::set<std::string> files_with_ranges;
  for (const PlanSite& s : plan_.sites)
    if (Inserts(s.decision)) files_with_ranges.insert(s.file);
  for (PlanSite& s : plan_.sites) s.density_merged = s.density_merged && files_with_ranges.count(s.file) > 0;
  for (PlanKernel& k : plan_.kernels) Summarize(k);
}

}  // namespace plan_steps

std::string PlanCoreName(unsigned cores) { return ix::CoreName(cores); }

std::set<std::string> Plan::TracedFiles() const {
  std::set<std::string> out;
  for (const PlanSite& s : sites)
    if ((Inserts(s.decision) && !s.label.empty()) || s.decision == Decision::kExisting) out.insert(s.file);
  return out;
}

Result<Plan> BuildPlan(const PlanOptions& options) {
  Plan plan;
  fs::path op_dir = ResolveAgainstCwd(options.op_dir).lexically_normal();
  std::error_code ec;
  if (!fs::is_directory(op_dir, ec))
    return NotFoundError("{}: not a directory; pass the operator directory (the one holding op_kernel/)",
                         options.op_dir.string());
  plan.op_dir = op_dir;
  SourceSet set(op_dir);
  OPTRACE_ASSIGN_OR_RETURN(std::vector<fs::path> files, ListSourceFiles(op_dir));
  for (const fs::path& p : files) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
    std::vector<int> stale;
    set.AddText(set.Relative(p), RevertText(text, &stale));
    for (int l : stale)
      plan.warnings.push_back(
          fmt::format("{}:{}: its optrace:auto tag no longer matches the code (edited since "
                      "instrument ran); it is read as a hand mark, and instrument refuses the tree "
                      "until the line is restored, deleted or untagged",
                      set.Relative(p), l));
  }
  std::vector<fs::path> entries;
  if (!options.entry.empty()) {
    fs::path entry = ResolveAgainstCwd(options.entry).lexically_normal();
    // `--entry op_kernel/k.cpp` may be given relative to --op.
    if (!fs::is_regular_file(entry, ec) && options.entry.is_relative())
      entry = (op_dir / options.entry).lexically_normal();
    if (!fs::is_regular_file(entry, ec))
      return NotFoundError("{}: no such entry file (tried it relative to the working directory and to {})",
                           options.entry.string(), options.op_dir.string());
    entries.push_back(entry);
  } else {
    std::vector<std::string> kernel_files;
    const auto kernel_macros = KernelMacros(set);
    for (const fs::path& p : files) {
      const SourceFile* f = set.Find(p);
      if (f && DefinesKernel(*f, kernel_macros)) kernel_files.push_back(f->rel);
    }
    for (const std::string& rel : DefaultKernelEntries(kernel_files)) entries.push_back(op_dir / rel);
  }
  if (entries.empty())
    return BadInputError(
        "{}: no kernel entry found (no .cpp/.cc/.cxx/.cu/.asc/.cce with a __global__ function); pass --entry FILE",
        options.op_dir.string());
  IncludeOptions io;
  io.include_dirs = options.include_dirs;
  io.include_dirs.push_back(op_dir);
  if (fs::is_directory(op_dir / "op_kernel", ec)) io.include_dirs.push_back(op_dir / "op_kernel");
  io.by_name = true;
  std::set<const SourceFile*> reached;
  std::vector<const SourceFile*> entry_files;
  std::vector<std::string> by_name;
  for (const fs::path& e : entries) {
    OPTRACE_ASSIGN_OR_RETURN(IncludeTree tree, WalkIncludeTree(set, e, io));
    entry_files.push_back(tree.entry);
    for (const SourceFile* f : tree.files) reached.insert(f);
    for (std::string& b : tree.FoundByName()) by_name.push_back(std::move(b));
  }
  if (!by_name.empty()) plan.notes.push_back(FoundByNameSummary(by_name));
  set.FindAllTraces();
  std::vector<const SourceFile*> index_files(reached.begin(), reached.end());
  std::sort(index_files.begin(), index_files.end(),
            [](const SourceFile* a, const SourceFile* b) { return a->rel < b->rel; });
  ix::CodeIndex index(index_files);
  if (PlanOnIndex(set, index, entry_files, &plan) == 0)
    return BadInputError("{}: no __global__ function definition found in {}; pass the kernel's file with --entry",
                         options.op_dir.string(), set.Relative(entries.front()));
  return plan;
}

int PlanOnIndex(const SourceSet& set, const ix::CodeIndex& index, const std::vector<const SourceFile*>& entry_files,
                Plan* plan, const std::vector<CallGraph>* graphs) {
  Builder b(index, *plan);
  b.sources_ = &set;
  b.graphs_ = graphs;
  int kernels = 0;
  for (const FunctionDef* k : index.Kernels()) {
    if (std::find(entry_files.begin(), entry_files.end(), k->file) == entry_files.end()) continue;
    if (index.CalledByAnotherKernel(*k)) continue;  // planned inside the entry that calls it
    if (index.ForwardedKernel(*k)) continue;        // a stub: the kernel it forwards to is planned
    b.AddKernel(*k);
    ++kernels;
  }
  if (kernels == 0) return 0;
  b.Finish();
  for (const SourceFile* f : index.files())
    if (f->rel.rfind("../", 0) == 0 || fs::path(f->rel).is_absolute())
      plan->notes.push_back(fmt::format("{}: outside the operator directory; read for calls, never edited", f->rel));
  return kernels;
}

}  // namespace optrace::source
