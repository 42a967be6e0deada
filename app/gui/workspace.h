#pragma once
// The window's workspaces: one layout of panels for each thing a person comes to do — chat, tune
// sampling, read attention, learn how a step runs. View menu, toolbar, Ctrl+1…4, --workspace.

#include <QString>
#include <array>
#include <optional>

namespace inferlens::gui {

enum class Workspace { Chat, SamplingLab, Attention, Teaching };

inline constexpr std::array<Workspace, 4> kWorkspaces = {Workspace::Chat, Workspace::SamplingLab,
                                                         Workspace::Attention, Workspace::Teaching};

// The name --workspace takes and the settings use: "chat", "sampling", "attention", "teaching".
QString workspaceKey(Workspace workspace);
// A --workspace value (a key, case-insensitive); nullopt when it names none.
std::optional<Workspace> parseWorkspace(const QString& key);
// The translated name on the menu and toolbar ("Sampling lab").
QString workspaceTitle(Workspace workspace);

}  // namespace inferlens::gui
