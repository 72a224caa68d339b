// The addon exports what the library uses and nothing more: an entry only tests
// call would be surface to keep working for no user.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { native, packageRoot } from "../src/native";

function sources(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith(".ts") && entry.name !== "native.ts" ? [file] : [];
  });
}

describe("addon", () => {
  it("exports only functions the library calls", () => {
    const library = sources(path.join(packageRoot(), "src")).map((file) => fs.readFileSync(file, "utf8")).join("\n");
    const exported = Object.keys(native());
    expect(exported).to.include.members(["launch", "prepare", "kernels"]);
    const unused = exported.filter((name) => !new RegExp(`\\.${name}\\(`).test(library));
    expect(unused, "exported by native/addon but called nowhere in src/").to.deep.equal([]);
  });
});
