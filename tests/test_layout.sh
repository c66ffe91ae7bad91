# test_layout.sh - the file map of docs/architecture.md matches the tree: every file the map names
# exists, and every source, header, script and document of the project's folders is in the map,
# except the schemes' files in model/pos/, which are checked against the registry instead (so a
# new scheme needs no edit here or in the map). The map is the fenced block after the line
# "<!-- file map -->" in docs/architecture.md. In it, a line whose first
# word ends in "/" starts a folder; the other words that look like file names (NAME.EXT, or
# NAME.{h,c}) name files of the current folder; everything else is description.
. "$(dirname "$0")/lib.sh" layout

mapdoc=docs/architecture.md
map=$(awk '/<!-- file map -->/ { on = 1; next } on && /^```/ { if (++fence == 2) exit; next } on && fence == 1' $mapdoc)
[ -n "$map" ] && ok "$mapdoc has a file map (<!-- file map --> and a fenced block)" || bad "file map" "$mapdoc has no <!-- file map --> block"

# the map as "folder/file" lines
listed=$(printf '%s\n' "$map" | awk '
  { start = 1
    if ($1 ~ /\/$/) { dir = $1; start = 2; dirs[dir] = 1 }
    for (i = start; i <= NF; i++) {
      w = $i; sub(/[,;:]$/, "", w)
      if (w ~ /^[A-Za-z0-9_.-]+\.\{[a-z,]+\}$/) { # name.{h,c}
        base = w; sub(/\.\{.*/, "", base); ext = w; sub(/.*\{/, "", ext); sub(/\}$/, "", ext)
        n = split(ext, e, ","); for (k = 1; k <= n; k++) print dir base "." e[k]
      } else if (w ~ /^[A-Za-z0-9_-][A-Za-z0-9_.-]*\.(c|h|sh|py|md|txt)$/) print dir w
    } }
  END { for (d in dirs) print "DIR " d }')
nfiles=$(printf '%s\n' "$listed" | grep -vc '^DIR ')
[ "$nfiles" -gt 20 ] && ok "the file map names $nfiles files" || bad "file map" "only $nfiles files named"

# every named file exists; every named folder exists
missing=""
while read -r f; do
  case $f in
    "DIR "*) d=${f#DIR }; [ -d "$d" ] || missing="$missing $d" ;;
    *) [ -f "$f" ] || missing="$missing $f" ;;
  esac
done <<< "$listed"
[ -z "$missing" ] && ok "every file and folder the map names exists" || bad "file map" "named but not in the tree:$missing"

# the registered schemes, and the file each lives in (kerple-log and kerple-power share kerple.c)
schemes=$($BIN --help | sed -n 's/.*(--pos): //p' | tr '|' ' ')
scheme_files=$(for s in $schemes; do echo "model/pos/${s%%-*}.c"; done | sort -u)

# every project file of these folders is named (build output and data are not sources), or is a scheme's file
unlisted=""
for f in $(find model train tools tests docs python -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' -o -name '*.md' \) | sort); do
  printf '%s\n' "$listed" $scheme_files | grep -qxF "$f" || unlisted="$unlisted $f"
done
[ -z "$unlisted" ] && ok "every source, header, script and document is in the map" || bad "file map" "in the tree but not in the map:$unlisted"

# the wing: every registered scheme has its file in model/pos/
[ -n "$schemes" ] && ok "posgpt --help lists the registered schemes" || bad "schemes" "posgpt --help names no --pos schemes"
nofile=""
for s in $schemes; do
  f=model/pos/${s%%-*}.c # kerple-log and kerple-power share kerple.c
  [ -f "$f" ] || nofile="$nofile $s"
done
[ -z "$nofile" ] && ok "every registered scheme has its file in model/pos/ ($(echo $schemes | wc -w) schemes)" \
  || bad "scheme files" "no model/pos/NAME.c for:$nofile"

# every script in tools/ answers --help with its header and exit 0, doing nothing else (the *_lib.sh
# files are sourced, not run): the handler is the line after `set -...`, before any work, so running
# it is safe; a script without it is reported, not run
nohelp=""
for f in tools/*.sh; do
  case $f in *_lib.sh) continue ;; esac
  n=$(basename "$f")
  h=$(awk '/^set -/ { getline; print; exit }' "$f")
  case $h in 'case "${1:-}" in -h | --help)'*) ;; *) nohelp="$nohelp $n"; continue ;; esac
  if out=$(timeout 10 bash "$f" --help < /dev/null 2>&1); then
    case $out in "$n - "*) continue ;; esac
  fi
  nohelp="$nohelp $n"
done
[ -z "$nohelp" ] && ok "every tools/*.sh answers --help with its header, exit 0" || bad "--help" "no header or not exit 0:$nohelp"

# a block of a document copied from a file the project's commands write ("<!-- copied from PATH
# -->" ... "<!-- end of copy -->", PATH from the repository root) is that file's text, byte for
# byte: a README number cannot drift from the run that made it
ncopies=0 stale=""
for doc in README.md docs/*.md runs/*/README.md; do
  [ -f "$doc" ] || continue
  for src in $(sed -n 's/^<!-- copied from \([^ ]*\) -->$/\1/p' "$doc"); do
    ncopies=$((ncopies + 1))
    block=$(awk -v m="<!-- copied from $src -->" '$0 == m { on = 1; next } on && $0 == "<!-- end of copy -->" { exit } on' "$doc")
    [ -f "$src" ] && [ "$block" = "$(cat "$src")" ] || stale="$stale $doc:$src"
  done
done
[ -z "$stale" ] && ok "every copied block in the documents equals its file ($ncopies)" || bad "copied blocks" "differ from their file:$stale"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
