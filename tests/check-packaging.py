#!/usr/bin/env python3
# check-packaging.py: checks of the packaging that no upstream validator does.
#
#   check-packaging.py potfiles SOURCE_ROOT
#       every file under app/, view/, widgets/ and data/ with translatable strings is
#       listed in po/POTFILES.in, and every file listed there exists
#   check-packaging.py flatpak MANIFEST
#       the Flatpak manifest is valid JSON for dev.planar.Planar on the GNOME
#       runtime, with the permissions a viewer needs and none broader
#   check-packaging.py mime MIME_XML
#       the shared-mime-info package is well formed and update-mime-database
#       accepts it
#
# Prints TAP; exits non-zero on the first failed check group.
#
# SPDX-License-Identifier: GPL-3.0-or-later

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

APP_ID = "dev.planar.Planar"
MIME_TYPE = "application/x-xplane+protobuf"

# _("..."), N_("..."), C_(...), NC_(...) and gettext calls in C; translatable
# attributes in GtkBuilder files.
C_MARKERS = re.compile(r'(?<![A-Za-z0-9_])(?:N_|_|C_|NC_|g_dgettext|g_dngettext|g_dpgettext2?)\s*\(')
UI_MARKERS = re.compile(r'translatable="yes"')
# Files whose format xgettext reads without markers (desktop entries,
# AppStream, GSettings schemas) are translatable by nature.
NATURALLY_TRANSLATABLE = (".desktop.in", ".metainfo.xml.in", ".gschema.xml")


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        self.n += 1
        print(("ok" if ok else "not ok") + " %d - %s" % (self.n, what))
        if not ok:
            self.failed += 1
            for line in detail.splitlines():
                print("# " + line)

    def finish(self):
        print("1..%d" % self.n)
        return 1 if self.failed else 0


def has_translatable_strings(path):
    if path.endswith(NATURALLY_TRANSLATABLE):
        return True
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (UnicodeDecodeError, OSError):
        return False
    if path.endswith((".c", ".h")):
        # Comments and the markers' own definitions do not count.
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        text = re.sub(r"#\s*define\s+N?_\(.*", "", text)
        return C_MARKERS.search(text) is not None
    if path.endswith(".ui"):
        return UI_MARKERS.search(text) is not None
    return False


def check_potfiles(tap, root):
    listed = []
    with open(os.path.join(root, "po", "POTFILES.in"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                listed.append(line)

    missing_on_disk = [p for p in listed if not os.path.isfile(os.path.join(root, p))]
    tap.check(not missing_on_disk, "every file in POTFILES.in exists",
              "\n".join("listed but missing: " + p for p in missing_on_disk))
    tap.check(len(listed) == len(set(listed)), "POTFILES.in lists each file once")
    tap.check(listed == sorted(listed), "POTFILES.in is sorted")

    needed = []
    for top in ("app", "view", "widgets", "data"):
        for folder, _dirs, files in os.walk(os.path.join(root, top)):
            for name in files:
                path = os.path.join(folder, name)
                if has_translatable_strings(path):
                    needed.append(os.path.relpath(path, root))
    unlisted = sorted(set(needed) - set(listed))
    tap.check(not unlisted, "every file with translatable strings is in POTFILES.in",
              "\n".join("not listed: " + p for p in unlisted))


def check_flatpak(tap, path):
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        tap.check(False, "the manifest is valid JSON", str(e))
        return
    tap.check(True, "the manifest is valid JSON")

    app_id = manifest.get("app-id", manifest.get("id"))
    tap.check(app_id == APP_ID, "app-id is " + APP_ID, "app-id: %r" % app_id)
    tap.check(manifest.get("runtime") == "org.gnome.Platform", "runtime is org.gnome.Platform")
    tap.check(manifest.get("sdk") == "org.gnome.Sdk", "sdk is org.gnome.Sdk")
    tap.check(bool(manifest.get("runtime-version")), "runtime-version is set")
    tap.check(manifest.get("command") == "planar", "command is planar")

    args = manifest.get("finish-args", [])
    required = ["--socket=wayland", "--socket=fallback-x11", "--share=ipc", "--device=dri",
                "--share=network"]
    absent = [a for a in required if a not in args]
    tap.check(not absent, "finish-args has what a viewer needs", "missing: " + " ".join(absent))
    forbidden = re.compile(r"^--(filesystem=(host|home|host-os|host-etc|/|~)|device=all|socket=session-bus|"
                           r"socket=system-bus|talk-name=org\.freedesktop\.Flatpak)")
    broad = [a for a in args if forbidden.match(a) or a.startswith("--socket=x11")]
    tap.check(not broad, "finish-args has no broad permission (files come through portals)",
              "found: " + " ".join(broad))

    modules = manifest.get("modules", [])
    names = [m.get("name") if isinstance(m, dict) else m for m in modules]
    tap.check(bool(modules) and names[-1] == "planar", "the last module is Planar itself",
              "modules: %r" % names)
    tap.check("protobuf-c" in names, "protobuf-c is built (protoc-c and libprotobuf-c)",
              "modules: %r" % names)
    for m in modules:
        if not isinstance(m, dict):
            continue
        for source in m.get("sources", []):
            if source.get("type") == "archive":
                tap.check(bool(re.fullmatch(r"[0-9a-f]{64}", source.get("sha256", ""))),
                          "archive of %s has a sha256" % m.get("name"))
            if source.get("type") == "git" and m.get("name") != "planar":
                tap.check(bool(source.get("tag") or source.get("commit")),
                          "git source of %s is pinned" % m.get("name"))
    planar = modules[-1] if modules and isinstance(modules[-1], dict) else {}
    tap.check(planar.get("buildsystem") == "meson", "Planar builds with meson")
    tap.check("-Dtests=false" in planar.get("config-opts", []), "Planar's tests are not built in the sandbox")


def check_mime(tap, path):
    ns = "{http://www.freedesktop.org/standards/shared-mime-info}"
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError) as e:
        tap.check(False, "the MIME package is well-formed XML", str(e))
        return
    tap.check(True, "the MIME package is well-formed XML")
    root = tree.getroot()
    tap.check(root.tag == ns + "mime-info", "its root is <mime-info> in the shared-mime-info namespace")
    types = {t.get("type"): t for t in root.findall(ns + "mime-type")}
    tap.check(MIME_TYPE in types, "it declares " + MIME_TYPE)
    globs = [g.get("pattern") for g in types.get(MIME_TYPE, root).findall(ns + "glob")]
    tap.check("*.xplane.pb" in globs, "its glob is *.xplane.pb", "globs: %r" % globs)

    update = shutil.which("update-mime-database")
    tap.check(update is not None, "update-mime-database is installed (shared-mime-info)")
    if update is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "packages"))
        shutil.copy(path, os.path.join(tmp, "packages", APP_ID + ".xml"))
        run = subprocess.run([update, tmp], capture_output=True, text=True)
        # It warns on stderr about a folder outside XDG_DATA_DIRS; errors in
        # the package are reported as "Error" or "Failed".
        errors = [l for l in run.stderr.splitlines() if re.search(r"\b(Error|Failed|Unknown)\b", l)]
        tap.check(run.returncode == 0 and not errors, "update-mime-database accepts it",
                  run.stderr)
        globs2 = os.path.join(tmp, "globs2")
        text = open(globs2, encoding="utf-8").read() if os.path.exists(globs2) else ""
        tap.check(MIME_TYPE + ":*.xplane.pb" in text, "the compiled database maps *.xplane.pb to " + MIME_TYPE)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("potfiles", "flatpak", "mime"):
        sys.stderr.write(__doc__ if __doc__ else "usage: check-packaging.py potfiles|flatpak|mime PATH\n")
        return 2
    tap = Tap()
    {"potfiles": check_potfiles, "flatpak": check_flatpak, "mime": check_mime}[sys.argv[1]](tap, sys.argv[2])
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
