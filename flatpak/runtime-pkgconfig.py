#!/usr/bin/env python3
# runtime-pkgconfig.py: writes flatpak/runtime-pkgconfig.txt, the elements of
# the GNOME Platform and the pkg-config modules they install, as far as the
# build definitions tell.
#
#   runtime-pkgconfig.py GNOME_BUILD_META_GIT REF FREEDESKTOP_SDK_GIT > flatpak/runtime-pkgconfig.txt
#
# GNOME_BUILD_META_GIT and FREEDESKTOP_SDK_GIT are clones (bare or not) of
# https://gitlab.gnome.org/GNOME/gnome-build-meta and
# https://gitlab.com/freedesktop-sdk/freedesktop-sdk; REF is the GNOME
# release tag (for example 50.4). The freedesktop-sdk commit is the one the
# junction elements/freedesktop-sdk.bst names at REF.
#
# The Platform is the runtime closure ('depends' and 'runtime-depends', not
# 'build-depends') of elements/sdk-platform.bst, with the junction's
# overrides applied; the Sdk adds the headers and .pc files of the same
# elements. An element's pkg-config modules come from the .pc files its
# definition names and from KNOWN below (read from each project's own build
# files); an element with neither is listed with "-".
#
# Needs PyYAML. Not run by the tests: they read the committed output.
#
# SPDX-License-Identifier: GPL-3.0-or-later

import re
import subprocess
import sys

import yaml

# element (without .bst) -> the pkg-config modules its project installs.
KNOWN = {
    "sdk/glib": "glib-2.0 gobject-2.0 gio-2.0 gio-unix-2.0 gmodule-2.0 gmodule-no-export-2.0 "
                "gmodule-export-2.0 gthread-2.0 girepository-2.0",
    "components/glib": "glib-2.0 gobject-2.0 gio-2.0 gio-unix-2.0 gmodule-2.0 gthread-2.0",
    "sdk/gtk": "gtk4 gtk4-unix-print gtk4-wayland gtk4-x11",
    "sdk/libadwaita": "libadwaita-1",
    "sdk/json-glib": "json-glib-1.0",
    "components/json-glib": "json-glib-1.0",
    "sdk/graphene": "graphene-1.0 graphene-gobject-1.0",
    "sdk/pango": "pango pangocairo pangoft2",
    "sdk/cairo": "cairo cairo-gobject",
    "sdk/gdk-pixbuf": "gdk-pixbuf-2.0",
    "sdk/libsoup": "libsoup-3.0",
    "sdk/gtksourceview": "gtksourceview-5",
    "bootstrap/zstd": "libzstd",
    "bootstrap/xxhash": "libxxhash",
    "bootstrap/zlib": "zlib",
    "bootstrap/pcre2": "libpcre2-8",
    "components/openssl": "openssl libssl libcrypto",
    "components/abseil-cpp": "absl_base absl_strings absl_status absl_synchronization",
    "components/libffi": "libffi",
    "components/expat": "expat",
    "components/libxml2": "libxml-2.0",
    "components/curl": "libcurl",
    "components/sqlite": "sqlite3",
    "components/lz4": "liblz4",
    "components/xz": "liblzma",
    "components/libpng": "libpng",
    "components/icu": "icu-uc icu-i18n",
    "components/libarchive": "libarchive",
}


def git_show(repo, ref, path):
    run = subprocess.run(["git", "-C", repo, "show", "%s:%s" % (ref, path)],
                         capture_output=True, text=True)
    return run.stdout if run.returncode == 0 else None


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: runtime-pkgconfig.py GNOME_BUILD_META_GIT REF FREEDESKTOP_SDK_GIT\n")
        return 2
    gbm, ref, fds = sys.argv[1:]
    junction = yaml.safe_load(git_show(gbm, ref, "elements/freedesktop-sdk.bst"))
    fds_ref = junction["sources"][0]["ref"].rsplit("-g", 1)[1]
    overrides = junction["config"]["overrides"]
    gbm_commit = subprocess.run(["git", "-C", gbm, "rev-parse", ref + "^{commit}"],
                                capture_output=True, text=True, check=True).stdout.strip()

    def resolve(cur, fn):
        junc = None
        if ":" in fn:
            junc, fn = fn.split(":", 1)
        if cur == "gnome-build-meta" and junc == "freedesktop-sdk.bst":
            if fn in overrides:
                return ("gnome-build-meta", overrides[fn])
            return ("freedesktop-sdk", fn)
        if junc:
            return None
        return (cur, fn)

    seen = {}
    todo = [("gnome-build-meta", "sdk-platform.bst")]
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        repo, r = (gbm, ref) if key[0] == "gnome-build-meta" else (fds, fds_ref)
        text = git_show(repo, r, "elements/" + key[1])
        seen[key] = text or ""
        if not text:
            continue
        element = yaml.safe_load(text) or {}
        for field in ("depends", "runtime-depends"):
            deps = element.get(field) or []
            if isinstance(deps, dict):
                deps = deps.get("(>)", [])
            for dep in deps:
                if isinstance(dep, dict):
                    if dep.get("type") == "build":
                        continue
                    name = (dep["junction"] + ":" if dep.get("junction") else "") + dep["filename"]
                else:
                    name = dep
                target = resolve(key[0], name)
                if target:
                    todo.append(target)

    print("# The GNOME 50 Platform's elements and the pkg-config modules they install.")
    print("# Written by flatpak/runtime-pkgconfig.py from gnome-build-meta %s (%s)," % (ref, gbm_commit))
    print("# elements/sdk-platform.bst, and freedesktop-sdk %s," % junction["sources"][0]["ref"])
    print("# the commit its junction elements/freedesktop-sdk.bst names.")
    print("# A line: SOURCE:ELEMENT MODULE... ; \"-\" where the definitions name no .pc file and")
    print("# KNOWN in the script has no entry (the element is in the runtime all the same).")
    for (src, fn) in sorted(seen, key=lambda k: (k[0], k[1])):
        text = seen[(src, fn)]
        name = fn[:-4] if fn.endswith(".bst") else fn
        mods = set(re.findall(r"([A-Za-z0-9_.+-]+)\.pc\b", text))
        mods.update(KNOWN.get(name, "").split())
        print("%s:%s %s" % (src, name, " ".join(sorted(mods)) if mods else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
