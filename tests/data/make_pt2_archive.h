// Test-data generator: a torch.export `.pt2` archive (a stored zip holding only
// `model/models/model.json`) with one user input x: f32[4] and a chain of `nodes` relu nodes.
// Each node's value is named after `valueName(i)`, so a test can make every node want the same
// name (the quadratic unique naming of issue 31) or a million distinct ones. For the pt2
// benchmark and the reader's tests; the archive is made in memory, nothing is committed.
#pragma once

#include "tests/unit/util/raw_zip_writer.h"

#include <functional>
#include <string>

namespace fxs::testdata {

inline std::string pt2ProgramJson(std::size_t nodes,
                                  const std::function<std::string(std::size_t)>& valueName)
{
    const std::string meta = R"({"dtype": 7, "sizes": [{"as_int": 4}], "requires_grad": false,)"
                             R"( "device": {"type": "cpu", "index": null}, "strides": )"
                             R"([{"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7})";
    std::string json = R"({"schema_version": {"major": 8, "minor": 17}, "graph_module": )"
                       R"({"graph": {"inputs": [{"as_tensor": {"name": "x"}}], "nodes": [)";
    std::string values = "\"x\": " + meta;
    std::string previous = "x";
    for (std::size_t i = 0; i < nodes; ++i) {
        const std::string name = valueName(i);
        json += i == 0 ? "" : ", ";
        json += R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", )"
                R"("arg": {"as_tensor": {"name": ")" +
                previous + R"("}}, "kind": 1}], "outputs": [{"as_tensor": {"name": ")" + name +
                R"("}}], "metadata": {}, "name": ")" + name + "\"}";
        values += ", \"" + name + "\": " + meta;
        previous = name;
    }
    json += R"(], "outputs": [{"as_tensor": {"name": ")" + previous +
            R"("}}], "tensor_values": {)" + values +
            R"(}}, "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": )"
            R"({"name": "x"}}}}], "output_specs": [{"user_output": {"arg": {"as_tensor": )"
            R"({"name": ")" +
            previous + R"("}}}}]}}})";
    return json;
}

inline std::string pt2Archive(const std::string& programJson)
{
    return test::rawZip({test::storedEntry("model/models/model.json", programJson),
                         test::storedEntry("model/archive_format", "pt2")});
}

} // namespace fxs::testdata
