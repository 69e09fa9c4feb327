// Test helpers shared by the graph-code tests: fixture lists, TORCH_TRACE payload extraction
// and an independent statement counter (regexes over lines; no parser code reused).
#pragma once

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>

#include <string>
#include <vector>

namespace fxs_test {

struct Payload {
    QString where;     // "run/file.log:line kind"
    std::string text;
    int firstLine = 1; // 1-based line of the payload's first line in the log
};

inline QString fixture(const QString& rel) { return QStringLiteral(FXSCOPE_TEST_DATA "/fixtures/") + rel; }

inline QString readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QString::fromUtf8(f.readAll());
}

inline QStringList graphFixtureFiles()
{
    QStringList files;
    for (const QString& name : QDir(fixture("graphs")).entryList({"*.txt"}, QDir::Files, QDir::Name)) {
        files << fixture("graphs/" + name);
    }
    files << fixture("export/small_mlp_export_graph.txt");
    return files;
}

inline QStringList traceLogs()
{
    QStringList logs;
    QDir dir(fixture("traces"));
    for (const QString& run : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        for (const QString& log : QDir(dir.filePath(run)).entryList({"*.log"}, QDir::Files)) {
            logs << dir.filePath(run + "/" + log);
        }
    }
    return logs;
}

inline bool isGraphKind(const QJsonObject& env, QString& kind)
{
    static const QStringList kKinds = {"dynamo_output_graph", "aot_joint_graph", "aot_forward_graph",
                                       "aot_backward_graph", "aot_inference_graph",
                                       "inductor_post_grad_graph"};
    for (const QString& k : kKinds) {
        if (env.contains(k)) {
            kind = k;
            return true;
        }
    }
    const QString artifact = env.value("artifact").toObject().value("name").toString();
    kind = artifact;
    return artifact.endsWith("_graph");
}

// Graph payloads (envelope kinds above) and the `gm` components of cache-event payloads.
inline void tracePayloads(std::vector<Payload>& graphs, std::vector<Payload>& gms)
{
    for (const QString& path : traceLogs()) {
        const QStringList lines = readText(path).split('\n');
        for (int i = 0; i < lines.size(); ++i) {
            const int brace = lines[i].indexOf("] {");
            if (lines[i].startsWith('\t') || brace < 0) {
                continue;
            }
            const QJsonObject env = QJsonDocument::fromJson(lines[i].mid(brace + 2).toUtf8()).object();
            QStringList body;
            for (int k = i + 1; k < lines.size() && lines[k].startsWith('\t'); ++k) {
                body << lines[k].mid(1);
            }
            QString kind;
            const QString where = QDir(fixture("traces")).relativeFilePath(path) + ":" +
                                  QString::number(i + 1);
            if (isGraphKind(env, kind)) {
                graphs.push_back({where + " " + kind, body.join('\n').toStdString(), i + 2});
            } else if (kind.contains("cache_miss") || kind.contains("cache_hit")) {
                const QJsonArray comps = QJsonDocument::fromJson(body.join('\n').toUtf8())
                                             .object().value("components").toArray();
                for (const auto& c : comps) {
                    const QString s = c.toString();
                    const int at = s.indexOf("] gm: ");
                    if (at >= 0) {
                        gms.push_back({where + " gm", s.mid(at + 6).toStdString(), 1});
                    }
                }
            }
        }
    }
}

// Placeholders (declared `name: "meta"` lines of a forward, else its parameters without self),
// assignment lines without aliases `x = Name`, and one per return: what each graph's nodes are.
inline int countStatementsIndependently(const QString& text)
{
    static const QRegularExpression decl("^\\s+\\w+: \"[^\"]*\"\\s*(#.*)?$");
    static const QRegularExpression assign("^\\s+\\w+(: \"[^\"]*\")? = ");
    static const QRegularExpression alias("^\\s+\\w+ = \\w+(;.*)?$");
    static const QRegularExpression ret("^\\s+return\\b");
    static const QRegularExpression quoted("\"[^\"]*\"");
    static const QRegularExpression comment("#[^\\n]*");
    static const QRegularExpression param("^\\s*\\w+");
    const QStringList lines = text.split('\n');
    int total = 0;
    int decls = 0;
    int params = 0;
    const auto closeForward = [&] { total += decls > 0 ? decls : params; };
    bool inForward = false;
    for (int i = 0; i < lines.size(); ++i) {
        const QString& l = lines[i];
        if (l.trimmed().startsWith("def forward(")) {
            if (inForward) {
                closeForward();
            }
            inForward = true;
            decls = 0;
            QString sig;
            for (; i < lines.size(); ++i) {
                sig += QString(lines[i]).remove(comment) + "\n";
                if (lines[i].trimmed().endsWith("):")) {
                    break;
                }
            }
            sig = sig.mid(sig.indexOf('(') + 1);
            sig = sig.left(sig.lastIndexOf(')')).remove(quoted);
            params = -1; // self
            for (const QString& p : sig.split(',')) {
                params += param.match(p).hasMatch() ? 1 : 0;
            }
            continue;
        }
        if (decl.match(l).hasMatch()) {
            ++decls;
        } else if (assign.match(l).hasMatch() && !alias.match(l).hasMatch()) {
            ++total;
        } else if (ret.match(l).hasMatch()) {
            ++total;
        }
    }
    if (inForward) {
        closeForward();
    }
    return total;
}

} // namespace fxs_test
