// What a kernel source may make its compiler read, on the test device (the CPU
// emulator, or the GPU with FUSELAB_DEVICE=gpu): no file but the toolkit's and
// fuselab's headers, however the source spells the attempt, each refusal
// naming the line; and, for the GPU's compilers, the include resolution that
// runs before NVRTC or hiprtc sees a source, checked here on any machine.
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as fl from "../src";
import { guardFileAccess } from "../src/file-access";
import { packageRoot } from "../src/native";
import { expectThrows, testDevice } from "./helpers";

const KERNEL = "__global__ void k(int* out) { out[0] = 1; }\n";
const PASSWD_FIRST_LINE = fs.readFileSync("/etc/passwd", "utf8").split("\n")[0];

const HEADERS = "kernel code that includes only the toolkit's and fuselab's headers, by a relative name";
const PROBES = "kernel code that probes for headers only with __has_include(<name>) or __has_include(\"name\") written out, by a relative name";
const NO_FILE_DIRECTIVES = "free of assembler directives that read a file (.incbin, .include) or build one (.macro, .irp, .rept)";
const NO_LINE = "free of #line (the compiler would name another file in its messages, and show that file's lines)";
const NO_DEPENDENCY = "free of #pragma GCC dependency (it looks a file up)";

const refusal = (expected: string, got: string) => `fl.compile: source must be ${expected}, got ${got}`;

describe("what a kernel source may make its compiler read", () => {
  const dev = testDevice;

  function refuses(source: string, expected: string, got: string): void {
    const error = expectThrows(() => fl.compile(source, { device: dev() }), fl.ArgumentError, refusal(expected, got));
    expect(error.message).to.not.contain(PASSWD_FIRST_LINE);
  }

  it("refuses .incbin and the assembler's other file directives, however the string is built", () => {
    const attempts: Record<string, [string, string]> = {
      "written out": [`asm(".incbin \\"/etc/passwd\\"");\n${KERNEL}`, ".incbin in a string on line 1"],
      "split in two strings": [`asm(".inc" "bin \\"/etc/passwd\\"");\n${KERNEL}`, ".incbin in a string on line 1"],
      "spelled with escapes": [`asm("\\x2eincbin \\"/etc/passwd\\"");\n${KERNEL}`, ".incbin in a string on line 1"],
      "in octal, upper case": [`__asm__ volatile("\\056INCBIN \\"/etc/passwd\\"");\n${KERNEL}`, ".INCBIN in a string on line 1"],
      "across a line splice": [`\nasm(".inc\\\nbin \\"/etc/passwd\\"");\n${KERNEL}`, ".incbin in a string on line 2"],
      "stringified by a macro": [`#define S(x) #x\n#define A(x) asm(S(x))\nA(.incbin "/etc/passwd");\n${KERNEL}`, ".incbin on line 3"],
      "pasted by a macro": [`#define S(x) #x\n#define X(a, b) S(a##b)\nasm(X(.inc, bin) " \\"/etc/passwd\\"");\n${KERNEL}`, ".incbin in a string on line 3"],
      "in a branch only the compiler takes": [`#ifdef __GNUC__\n__asm__(".incbin \\"/etc/passwd\\"");\n#endif\n${KERNEL}`, ".incbin in a string on line 2"],
      "through .include": [`asm(".include \\"/etc/passwd\\"");\n${KERNEL}`, ".include in a string on line 1"],
      "built by a .macro": [`asm(".macro m f\\n.inc\\\\()bin \\\\f\\n.endm");\n${KERNEL}`, ".macro in a string on line 1"],
      "in an asm label": [`extern "C" int x asm("x\\n.incbin \\"/etc/passwd\\"");\n${KERNEL}`, ".incbin in a string on line 1"],
    };
    for (const [how, [source, got]] of Object.entries(attempts)) {
      try {
        refuses(source, NO_FILE_DIRECTIVES, got);
      } catch (e) {
        throw new Error(`${how}: ${(e as Error).message}`);
      }
    }
  });

  it("refuses __has_include of a path outside the headers' folders, or spelled so that it cannot be read", () => {
    refuses(`#if __has_include(</etc/shadow>)\n#endif\n${KERNEL}`, PROBES, `__has_include of "/etc/shadow" (a full path) on line 1`);
    refuses(`\n#if defined(X) || __has_include("/root/.ssh/id_rsa")\n#endif\n${KERNEL}`, PROBES, `__has_include of "/root/.ssh/id_rsa" (a full path) on line 2`);
    refuses(`#if __has_include(<fuselab/../../solutions/01-add-relu/solution.hip>)\n#endif\n${KERNEL}`, PROBES,
      `__has_include of "fuselab/../../solutions/01-add-relu/solution.hip" (which climbs out with ..) on line 1`);
    // Through the source's own macros, which this check expands as the compiler would.
    refuses(`#define P(x) __has_include(x)\n#if P(</etc/shadow>)\n#endif\n${KERNEL}`, PROBES, `__has_include of "/etc/shadow" (a full path) on line 2`);
    refuses(`#define C(a, b) a##b\n#if C(__has_, include)(</etc/shadow>)\n#endif\n${KERNEL}`, PROBES, `__has_include of "/etc/shadow" (a full path) on line 2`);
    refuses(`#define SECRET "/etc/shadow"\n#if __has_include(SECRET)\n#endif\n${KERNEL}`, PROBES, `__has_include of "/etc/shadow" (a full path) on line 2`);
    refuses(`#if __has_include(A_HEADERS_MACRO)\n#endif\n${KERNEL}`, PROBES, "__has_include on line 1, with a header name that is not written out");
    // Through a header's macros, whose arguments it cannot follow, and the other probes.
    refuses(`#if defined(X) && _CCCL_HAS_INCLUDE("/etc/shadow")\n#endif\n${KERNEL}`, PROBES, "_CCCL_HAS_INCLUDE on line 1");
    refuses(`#if __has_include_next(<cmath>)\n#endif\n${KERNEL}`, PROBES, "__has_include_next on line 1");
    refuses(`#if __has_embed("/etc/passwd")\n#endif\n${KERNEL}`, PROBES, "__has_embed on line 1");
    // In a branch no compiler takes, too: this check cannot know which branches the compiler takes.
    refuses(`#if 0\n#if __has_include("/etc/shadow")\n#endif\n#endif\n${KERNEL}`, PROBES, `__has_include of "/etc/shadow" (a full path) on line 2`);
  });

  it("answers __has_include only from the toolkit's and fuselab's headers", () => {
    // A file of this name in the working folder (where NVRTC would look first) is not found.
    const cwd = process.cwd();
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-probe-"));
    fs.mkdirSync(path.join(folder, "~", ".ssh"), { recursive: true });
    fs.writeFileSync(path.join(folder, "~", ".ssh", "id_rsa"), "secret\n");
    fs.writeFileSync(path.join(folder, "answer.h"), "#define ANSWER 42\n");
    try {
      process.chdir(folder);
      const module = fl.compile(`
#if __has_include("~/.ssh/id_rsa")
#define KEY 1
#else
#define KEY 0
#endif
#if __has_include("answer.h")
#define ANSWER_FOUND 1
#else
#define ANSWER_FOUND 0
#endif
#if __has_include(<fuselab/fuselab.h>) && __has_include("cuda_fp16.h")
#define OWN 1
#else
#define OWN 0
#endif
#ifdef __has_include
#define PROBES 1
#else
#define PROBES 0
#endif
__global__ void probes(int* out) { out[0] = KEY; out[1] = ANSWER_FOUND; out[2] = OWN; out[3] = PROBES; }
`, { device: dev() });
      const out = fl.full([4], -1, { dtype: "i32", device: dev() });
      module.fn("probes").launch({ grid: 1, block: 1 }, out);
      expect(Array.from(out.toArray())).to.deep.equal([0, 0, 1, 1]);
    } finally {
      process.chdir(cwd);
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("refuses #include of a file outside the headers' folders, naming the line, before any compiler opens it", () => {
    refuses(`#include </etc/passwd>\n${KERNEL}`, HEADERS, `#include of "/etc/passwd" (a full path) on line 1`);
    refuses(`\n\n#include "/etc/passwd"\n${KERNEL}`, HEADERS, `#include of "/etc/passwd" (a full path) on line 3`);
    refuses(`#define SECRET </etc/passwd>\n#include SECRET\n${KERNEL}`, HEADERS, `#include of "/etc/passwd" (a full path) on line 2`);
    refuses(`#include <fuselab/../../../../../../../../../../etc/passwd>\n${KERNEL}`, HEADERS,
      `#include of "fuselab/../../../../../../../../../../etc/passwd" (which climbs out with ..) on line 1`);
    refuses(`#include "../../solutions/01-add-relu/solution.hip"\n${KERNEL}`, HEADERS,
      `#include of "../../solutions/01-add-relu/solution.hip" (which climbs out with ..) on line 1`);
    // Spelled with the digraph of #, across a line splice, in a branch the compiler alone would take.
    refuses(`%:include </etc/passwd>\n${KERNEL}`, HEADERS, `#include of "/etc/passwd" (a full path) on line 1`);
    refuses(`#\\\ninclude </etc/passwd>\n${KERNEL}`, HEADERS, `#include of "/etc/passwd" (a full path) on line 1`);
    refuses(`#ifdef __GNUC__\n#include </etc/passwd>\n#endif\n${KERNEL}`, HEADERS, `#include of "/etc/passwd" (a full path) on line 2`);
    refuses(`#include_next <cmath>\n${KERNEL}`, HEADERS, "#include_next on line 1");
    refuses(`#embed "/etc/passwd"\n${KERNEL}`, HEADERS, "#embed on line 1");
    // Inside a comment it is no directive: a comment is blanked before the compiler sees the source.
    const module = fl.compile(`#include <cmath> /*\n#include </etc/passwd>\n*/\n${KERNEL}`, { device: dev() });
    expect(module.fn("k").name).to.equal("k");
  });

  it("refuses #line, which has GCC quote the lines of the file it names, and #pragma GCC dependency", () => {
    refuses(`#line 1 "/etc/passwd"\nint x = ;\n${KERNEL}`, NO_LINE, "#line on line 1");
    refuses(`\n%:line 1 "/etc/passwd"\n${KERNEL}`, NO_LINE, "#line on line 2");
    refuses(`# 1 "/etc/passwd"\n${KERNEL}`, NO_LINE, "#line on line 1");
    refuses(`#pragma GCC dependency "/etc/passwd"\n${KERNEL}`, NO_DEPENDENCY, `#pragma GCC dependency "/etc/passwd" on line 1`);
    refuses(`_Pragma("GCC dependency \\"/etc/passwd\\"")\n${KERNEL}`, NO_DEPENDENCY, `_Pragma("GCC dependency ...") on line 1`);
    refuses(`#define WARN(x) __glibc_macro_warning1(x)\nWARN(GCC dependency "/etc/passwd")\n${KERNEL}`, NO_DEPENDENCY, "GCC dependency on line 2");
    refuses(`#define P(x) _Pragma(#x)\nP(GCC dependency "/etc/passwd")\n${KERNEL}`,
      "kernel code whose _Pragma operators have their string written out", "_Pragma with a computed operand on line 1");
  });

  it("compiles what real kernels include and probe, and counts lines as written", () => {
    const module = fl.compile(`// a comment /* with a block inside
#include <cuda_fp16.h>
#include "cuda_runtime.h"
#include <cooperative_groups.h>
#if defined(__has_include) && __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#endif
/* a comment over
   three lines */
__global__ void lines(int* out) { out[0] = __LINE__; }
`, { device: dev() });
    const out = fl.full([1], -1, { dtype: "i32", device: dev() });
    module.fn("lines").launch({ grid: 1, block: 1 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([10]);
  });
});

describe("the include resolution NVRTC and hiprtc are given", () => {
  const kernels = path.join(packageRoot(), "kernels");
  const rtc = path.join(kernels, "fuselab", "rtc");
  const rtcNvidia = path.join(kernels, "fuselab", "rtc-nvidia");
  const rtcAmd = path.join(kernels, "fuselab", "rtc-amd");
  const macros = { __CUDACC__: "1", __CUDACC_RTC__: "1" };
  let toolkit: string;
  let cwd: string;

  before(() => {
    // A stand-in for the toolkit's folder, and a working folder holding what NVRTC would find there first.
    toolkit = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-toolkit-"));
    fs.writeFileSync(path.join(toolkit, "cuda_fp16.h"), "// half\n");
    fs.mkdirSync(path.join(toolkit, "cub"));
    fs.writeFileSync(path.join(toolkit, "cub", "cub.cuh"), "// cub\n");
    fs.writeFileSync(path.join(toolkit, "cub", "version.cuh"), "// cub's version\n");
    fs.symlinkSync("/etc/passwd", path.join(toolkit, "escape.h"));
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-cwd-"));
    fs.writeFileSync(path.join(cwd, "solution.hip"), "secret\n");
  });

  after(() => {
    fs.rmSync(toolkit, { recursive: true, force: true });
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  const guard = (source: string, target: "cuda" | "hip" = "cuda") => {
    const folders = target === "cuda" ? [kernels, rtc, rtcNvidia, toolkit] : [kernels, rtc, rtcAmd];
    const here = process.cwd();
    process.chdir(cwd);
    try {
      return guardFileAccess("fl.compile", source, target, macros, folders);
    } finally {
      process.chdir(here);
    }
  };

  it("gives the compiler each header by its path in the first allowed folder holding it, as the compiler's search spells it", () => {
    const text = guard(`#include <cuda_fp16.h>\n#include "cub/version.cuh"\n#include <cub/cub.cuh>\n#include <cmath>\n#include <fuselab/fuselab.h>\n${KERNEL}`);
    expect(text.split("\n").slice(0, 5)).to.deep.equal([
      `#include "${path.join(toolkit, "cuda_fp16.h")}"`,
      `#include "${path.join(toolkit, "cub", "version.cuh")}"`,
      // fuselab's stand-in, before the toolkit's own
      `#include "${path.join(rtcNvidia, "cub", "cub.cuh")}"`,
      `#include "${path.join(rtc, "cmath")}"`,
      `#include "${path.join(kernels, "fuselab", "fuselab.h")}"`,
    ]);
    expect(text.split("\n").slice(5).join("\n")).to.equal(KERNEL);
    // A folder given through a symbolic link (/usr/local/cuda, say) keeps its spelling.
    const link = path.join(cwd, "toolkit-link");
    fs.symlinkSync(toolkit, link);
    try {
      expect(guardFileAccess("fl.compile", "#include <cuda_fp16.h>\n", "cuda", macros, [link])).to.equal(`#include "${path.join(link, "cuda_fp16.h")}"\n`);
    } finally {
      fs.unlinkSync(link);
    }
  });

  it("refuses a header none of the folders holds, though the working folder or a symbolic link would give one", () => {
    expectThrows(() => guard(`#include "solution.hip"\n${KERNEL}`), fl.ArgumentError,
      refusal(`${HEADERS} (one this device's compiler finds among them)`, `#include of "solution.hip", which is none of them, on line 1: a project's own header is given with its text in compile's option headers`));
    expectThrows(() => guard(`\n#include <escape.h>\n${KERNEL}`), fl.ArgumentError,
      refusal(`${HEADERS} (one this device's compiler finds among them)`, `#include of "escape.h", which is none of them, on line 2`));
    expectThrows(() => guard(`#define H <cuda_fp16.h>\n#define I(x) x\n#include I(UNKNOWN_HEADER_MACRO)\n${KERNEL}`), fl.ArgumentError,
      refusal(`${HEADERS}, written out or given by a macro of the source itself`, "#include I(UNKNOWN_HEADER_MACRO) on line 3"));
  });

  it("stops the compiler, should it take a branch thought not taken, at a header none of the folders holds", () => {
    const text = guard(`#ifdef __HIP_PLATFORM_AMD__\n#include "solution.hip"\n#else\n#include <cuda_fp16.h>\n#endif\n${KERNEL}`);
    expect(text.split("\n")[1]).to.equal(`#error "fuselab: this header is not one of the toolkit's or fuselab's"`);
    expect(text.split("\n")[3]).to.equal(`#include "${path.join(toolkit, "cuda_fp16.h")}"`);
  });

  it("takes a project's fallback header climbing out with .. in a branch not taken, stopping the compiler there should it take it", () => {
    // cuSZ: #if CUDART_VERSION >= 11000 <cub/cub.cuh> #else a vendored "../../external/cub/cub/cub.cuh".
    const source = `#if CUDART_VERSION >= 11000\n#include <cuda_fp16.h>\n#else\n#include "../../external/cub/cub/cub.cuh"\n#endif\n${KERNEL}`;
    const text = guard(source.replace("CUDART_VERSION >= 11000", "1"));
    expect(text.split("\n")[3]).to.equal(`#error "fuselab: a header outside the folders given (../../external/cub/cub/cub.cuh)"`);
    const module = fl.compile(`${source}__global__ void one(int* out) { out[0] = 1; }`, { device: testDevice() });
    const out = fl.zeros([1], { dtype: "i32", device: testDevice() });
    module.fn("one").launch({ grid: 1, block: 1 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([1]);
    // Taken, it is refused before any compiler opens it.
    expectThrows(() => fl.compile(`#if CUDART_VERSION < 11000\n#else\n#include "../secret.h"\n#endif\n${KERNEL}`, { device: testDevice() }), fl.ArgumentError,
      refusal(HEADERS, `#include of "../secret.h" (which climbs out with ..) on line 3`));
  });

  it("answers __has_include from the folders, not the working folder, keeping the lines", () => {
    const text = guard(`#if __has_include("solution.hip") || __has_include(<escape.h>)\n#endif\n#if __has_include(<cuda_fp16.h>) && \\\n  __has_include( "cub/cub.cuh" )\n#endif\n${KERNEL}`);
    expect(text).to.equal(`#if 0 || 0\n#endif\n#if 1 && \\\n  1\n#endif\n${KERNEL}`);
  });

  it("leaves hiprtc's own headers to hiprtc, but for those fuselab gives (hip/hip_runtime.h, which some hiprtc releases cannot find)", () => {
    const text = guard(`#include <hip/hip_runtime.h>\n#if __has_include(<hip/hip_fp16.h>)\n#endif\n${KERNEL}`, "hip");
    expect(text).to.equal(`#include "${path.join(rtcAmd, "hip", "hip_runtime.h")}"\n#if __has_include(<hip/hip_fp16.h>)\n#endif\n${KERNEL}`);
  });
});
