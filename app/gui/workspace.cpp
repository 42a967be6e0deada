#include "workspace.h"

#include <QCoreApplication>

namespace inferlens::gui {

QString workspaceKey(Workspace workspace) {
    switch (workspace) {
        case Workspace::Chat:
            return QStringLiteral("chat");
        case Workspace::SamplingLab:
            return QStringLiteral("sampling");
        case Workspace::Attention:
            return QStringLiteral("attention");
        case Workspace::Teaching:
            return QStringLiteral("teaching");
    }
    return {};
}

std::optional<Workspace> parseWorkspace(const QString& key) {
    for (Workspace workspace : kWorkspaces)
        if (key.compare(workspaceKey(workspace), Qt::CaseInsensitive) == 0)
            return workspace;
    return std::nullopt;
}

QString workspaceTitle(Workspace workspace) {
    switch (workspace) {
        case Workspace::Chat:
            return QCoreApplication::translate("Workspace", "Chat");
        case Workspace::SamplingLab:
            return QCoreApplication::translate("Workspace", "Sampling lab");
        case Workspace::Attention:
            return QCoreApplication::translate("Workspace", "Attention");
        case Workspace::Teaching:
            return QCoreApplication::translate("Workspace", "Teaching");
    }
    return {};
}

}  // namespace inferlens::gui
