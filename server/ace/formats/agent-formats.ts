// The export-only formats for coding agents, their names and where their files go. Apart from
// agent-instructions.ts (which writes them and pulls in the tokenizer), so client code can list them.

export const AGENT_FORMATS = ["claude-md", "agents-md", "cursor-rules"] as const;
export type AgentFormat = (typeof AGENT_FORMATS)[number];

export function isAgentFormat(format: string): format is AgentFormat {
  return (AGENT_FORMATS as readonly string[]).includes(format);
}

export interface AgentFormatInfo {
  label: string;
  extension: string;
  mimeType: string;
  description: string;
  /** Where the file goes in a repository; for Cursor, the folder (the file is named after the playbook). */
  place: string;
}

export const AGENT_FORMAT_INFO: Record<AgentFormat, AgentFormatInfo> = {
  "claude-md": {
    label: "CLAUDE.md (Claude Code)",
    extension: ".md",
    mimeType: "text/markdown",
    description: "Markdown Claude Code reads from the repository's root: the bullets ranked and cut to the token budget, ids kept.",
    place: "CLAUDE.md",
  },
  "agents-md": {
    label: "AGENTS.md (Codex, Cursor, Cline and others)",
    extension: ".md",
    mimeType: "text/markdown",
    description: "The same markdown as AGENTS.md, the file most coding agents read: ranked, cut to the budget, ids kept.",
    place: "AGENTS.md",
  },
  "cursor-rules": {
    label: "Cursor rule (.mdc)",
    extension: ".mdc",
    mimeType: "text/markdown",
    description: "A Cursor project rule with front matter (alwaysApply), for .cursor/rules/: ranked, cut to the budget, ids kept.",
    place: ".cursor/rules/",
  },
};
