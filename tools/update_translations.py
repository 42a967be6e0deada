#!/usr/bin/env python3
"""Re-extracts the app's strings with lupdate into translations/inferlens_zh_CN.ts and fills in
the Simplified Chinese from translations/zh_CN.py. Exits 1, listing them, when a string has no
translation yet: add it to zh_CN.py and run again.

Usage: tools/update_translations.py [path/to/lupdate]
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TS_FILE = os.path.join(ROOT, "translations", "inferlens_zh_CN.ts")
SOURCES = ["app/gui", "widgets"]

sys.path.insert(0, os.path.join(ROOT, "translations"))
from zh_CN import ZH_CN  # noqa: E402


def main():
    lupdate = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/qt6/bin/lupdate"
    subprocess.run([lupdate, "-silent", "-no-obsolete", "-locations", "none", "-I", "widgets",
                    "-I", "app/gui", *SOURCES, "-ts", TS_FILE], cwd=ROOT, check=True)
    tree = ET.parse(TS_FILE)
    missing = []
    for message in tree.iter("message"):
        source = message.find("source").text
        translation = message.find("translation")
        text = ZH_CN.get(source)
        if text is None:
            missing.append(source)
            continue
        translation.attrib.pop("type", None)
        for child in list(translation):
            translation.remove(child)
        if message.get("numerus") == "yes":
            translation.text = None
            ET.SubElement(translation, "numerusform").text = text
        else:
            translation.text = text
    tree.write(TS_FILE, encoding="utf-8", xml_declaration=True)
    if missing:
        print("untranslated:", *missing, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
