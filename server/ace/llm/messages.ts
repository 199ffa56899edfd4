// What the ACE core hands to a chat model: the messages, and data blocks that keep untrusted text
// (traces, reflections, playbooks) apart from the instructions. (The JSON schema of a structured
// reply is built from the zod schema by server/llm/structured-output.ts.)

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * Untrusted text between `<tag>` and `</tag>`. A `<tag`/`</tag` inside the text would end the
 * block early and let the rest pass for instructions, so tags of the given names are defused
 * there ("<" becomes "‹"); everything else is kept as written.
 */
export function dataBlock(tag: string, text: string, blockTags: readonly string[] = [tag]): string {
  return `<${tag}>\n${defuseTags(text, blockTags)}\n</${tag}>`;
}

export function defuseTags(text: string, tags: readonly string[]): string {
  if (tags.length === 0) return text;
  const names = tags.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  return text.replace(new RegExp(`<(/?)(${names})(?=[\\s/>]|$)`, "giu"), "‹$1$2");
}
