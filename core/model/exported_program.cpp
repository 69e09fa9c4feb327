#include "core/model/exported_program.h"

#include <algorithm>

namespace fxs::model {

std::string_view exportInputKindName(ExportInputKind k)
{
    switch (k) {
    case ExportInputKind::UserInput: return "user_input";
    case ExportInputKind::Parameter: return "parameter";
    case ExportInputKind::Buffer: return "buffer";
    case ExportInputKind::TensorConstant: return "tensor_constant";
    case ExportInputKind::CustomObj: return "custom_obj";
    case ExportInputKind::Token: return "token";
    case ExportInputKind::ConstantInput: return "constant_input";
    }
    return "user_input";
}

std::string_view exportOutputKindName(ExportOutputKind k)
{
    switch (k) {
    case ExportOutputKind::UserOutput: return "user_output";
    case ExportOutputKind::LossOutput: return "loss_output";
    case ExportOutputKind::BufferMutation: return "buffer_mutation";
    case ExportOutputKind::GradientToParameter: return "gradient_to_parameter";
    case ExportOutputKind::GradientToUserInput: return "gradient_to_user_input";
    case ExportOutputKind::UserInputMutation: return "user_input_mutation";
    case ExportOutputKind::Token: return "token";
    case ExportOutputKind::ParameterMutation: return "parameter_mutation";
    }
    return "user_output";
}

namespace {

template <class T, class Key>
const T* findBy(const std::vector<T>& items, std::string_view value, Key key)
{
    const auto it = std::find_if(items.begin(), items.end(),
                                 [&](const T& item) { return item.*key == value; });
    return it == items.end() ? nullptr : &*it;
}

} // namespace

const ExportInputSpec* ExportedProgram::input(std::string_view placeholder) const
{
    return findBy(inputs, placeholder, &ExportInputSpec::name);
}

const RangeConstraint* ExportedProgram::range(std::string_view symbol) const
{
    return findBy(ranges, symbol, &RangeConstraint::symbol);
}

const ExportWeight* ExportedProgram::weight(std::string_view fqn) const
{
    return findBy(weights, fqn, &ExportWeight::fqn);
}

} // namespace fxs::model
