"""Prints, once each and in the order first seen, the functions of BINARY
that ran in the given callgrind profiles (scripts/link-order.sh).

In a profile, `ob=` names the object and `fn=` the function; both are
compressed to "(id) name" on first use and "(id)" after it.
"""
import re
import sys

LINE = re.compile(r"(c?ob|c?fn)=\((\d+)\)(?: (.*))?$")


def functions(profile, binary):
    names, objects, in_binary = {}, {}, False
    with open(profile, errors="replace") as lines:
        for line in lines:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            kind, key, name = m.groups()
            table = objects if kind.endswith("ob") else names
            if name:
                table[key] = name
            if kind == "ob":
                in_binary = objects.get(key, "") == binary
            elif kind == "fn" and in_binary:
                fn = names.get(key, "")
                if fn and not fn.startswith(("0x", "(below main)")):
                    yield fn


def main():
    binary, profiles = sys.argv[1], sys.argv[2:]
    seen = set()
    for profile in profiles:
        for fn in functions(profile, binary):
            if fn not in seen:
                seen.add(fn)
                print(fn)


if __name__ == "__main__":
    main()
