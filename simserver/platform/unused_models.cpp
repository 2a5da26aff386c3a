#include "unused_models.hpp"

#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace s4bxi::platform {

namespace {
// SimGrid 3.32's names for the models of virtual machines and their CPUs, of
// disks, and of hosts (parallel tasks).
bool unused(const std::string& name)
{
  return name == "VM_HL13" || name == "VmCpu_Cas01" || name == "Disk" || name == "Host_CLM03";
}

bool has_actions(simgrid::kernel::resource::Model& model)
{
  return not model.get_inited_action_set()->empty() || not model.get_started_action_set()->empty() ||
         not model.get_failed_action_set()->empty() || not model.get_finished_action_set()->empty() ||
         not model.get_ignored_action_set()->empty();
}
} // namespace

int leave_out_unused_models()
{
  // get_all_models() is the very list the engine walks (EngineImpl::models_);
  // the engine keeps owning the models (EngineImpl::models_prio_).
  auto& models = const_cast<std::vector<simgrid::kernel::resource::Model*>&>(
      simgrid::s4u::Engine::get_instance()->get_all_models());
  const auto before = models.size();
  std::erase_if(models, [](simgrid::kernel::resource::Model* model) {
    return unused(model->get_name()) && not has_actions(*model);
  });
  return static_cast<int>(before - models.size());
}

} // namespace s4bxi::platform
