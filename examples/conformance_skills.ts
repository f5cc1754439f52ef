/**
 * The skills fixture of the conformance server (SEP-2640): one skill held
 * in memory, with a subdirectory so that `resources/directory/read` has a
 * folder to descend into, and a nested path under an organisational prefix.
 *
 * @module
 */

import type { Server } from "../mod.ts";
import { loadSkill } from "../skills.ts";

const MANIFEST = `---
name: field-notes
description: Record and file field notes in the desk's house format
license: MIT
metadata:
  author: warden
  version: "1.0"
---

# Field notes

Write each note from \`templates/note.md\`, then file it as
\`references/FILING.md\` describes.
`;

const FILING = `# Filing

Notes go in date order, newest first.
`;

const TEMPLATE = `# Note: {{title}}

- when:
- where:
- what:
`;

/**
 * Publishes the fixture skills: `skill://field-notes/SKILL.md` with two
 * supporting files, and `skill://desk/archive/archive-notes/SKILL.md`, a
 * skill under an organisational prefix (the suite reads the directory of
 * whichever comes first, so each has a subdirectory).
 *
 * @example
 * ```ts
 * import { createServer } from "../mod.ts";
 * import { addSkillFixtures } from "./conformance_skills.ts";
 * const server = createServer({ name: "conformance", version: "1.0.0" });
 * await addSkillFixtures(server);
 * ```
 */
export async function addSkillFixtures(server: Server): Promise<void> {
  server.skill(
    await loadSkill({
      files: {
        "SKILL.md": MANIFEST,
        "references/FILING.md": FILING,
        "templates/note.md": TEMPLATE,
      },
    }),
  );
  server.skill(
    await loadSkill({
      path: "desk/archive/archive-notes",
      files: {
        "SKILL.md": MANIFEST.replace("name: field-notes", "name: archive-notes")
          .replace("Record and file field notes", "Find archived field notes"),
        "references/FILING.md": FILING,
      },
    }),
  );
}
