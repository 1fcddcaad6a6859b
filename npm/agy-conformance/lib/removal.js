// What a sandbox made in its folder, and its removal, which removes nothing else and
// never follows a link. A sandbox given a folder that was not there made it (and any
// parent it had to make): that folder goes whole. A sandbox given a folder that was
// there (`fakeAgy({ dir: "." })` in a project) made only the entries of its layout that
// were not there yet: those go, and everything else stays. Node has no `openat`, so each
// folder on the way is checked with `lstat` (a link is never entered), and `rmSync`
// removes a link it meets, never what the link names.
import { lstatSync, rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/** The entries a sandbox makes in its folder, a folder's own entries before it. */
export const LAYOUT = ["bin/agy", "bin/agy.tmp", "bin/agy_acp_server", "bin/agy_acp_server.tmp", "script.toml", "journal.jsonl", "journal.jsonl.live", "home", "work", "bin", "state"];

const exists = (path) => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

/**
 * What a sandbox about to lay itself out in `root` will have made: `top` is the
 * outermost folder it makes (what `mkdirSync(root, { recursive: true })` returned),
 * else `entries` are the entries of LAYOUT that `root` does not hold yet.
 */
export function made(root, top) {
  return { root, top, entries: top ? [] : LAYOUT.filter((e) => !exists(join(root, e))) };
}

/** Removes what `made` recorded; what it cannot reach without a link stays. */
export function removeMade({ root, top, entries }) {
  if (top) {
    rmSync(top, { recursive: true, force: true });
    return;
  }
  for (const entry of entries) removeEntry(root, entry.split("/"));
}

function removeEntry(root, parts) {
  let folder = root;
  try {
    for (const part of parts.slice(0, -1)) {
      folder = join(folder, part);
      if (!lstatSync(folder).isDirectory()) return;
    }
    const path = join(folder, parts.at(-1));
    if (lstatSync(path).isDirectory()) rmSync(path, { recursive: true, force: true });
    else unlinkSync(path);
  } catch {
    // gone already, or not ours to reach
  }
}
