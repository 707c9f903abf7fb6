#!/bin/bash
# plot.sh: PNG plots of a verbsbench --json run with gnuplot.
#
#   plot.sh [-o OUTDIR] [--stat min|median|mean] [--predict-max N] INPUT.json
#   plot.sh [-o OUTDIR] [--distance-from auto|raw|bins] --compare BASE.json NEW.json
#   bazel run //tools/plot -- -o OUTDIR INPUT.json
#
# Any run:      OUTDIR/hist_<name>.png  PDF (log x) and CDF of each histogram
#               OUTDIR/cdf_all.png      all CDFs overlaid (if more than one)
# A `lop` run:  OUTDIR/rtt.png          t_rtt(p) per peer with its fits (LoP and LogP)
#               OUTDIR/overhead.png     o_s(p) and o_r(p) with their t_ov fits
#               OUTDIR/latency.png      L(p), L_list(p) (measured and fitted)
#               OUTDIR/predict.png      predicted t_1:n and t^list_1:n
# --compare:    OUTDIR/overlay_<point>.png  both runs' PDF (log x) and CDF
#               per point they share, on the shared bins `verbsbench compare`
#               measured its distances on (verbsbench compare --plot-dir)
# The gnuplot inputs (.dat, .gp) are kept in OUTDIR/data for tweaking.
# Needs only bash and gnuplot; the data files come from //models/lop:lopfit
# and //tools/plot:histdat (found next to this script in Bazel's runfiles,
# in bazel-bin, or through $LOPFIT / $HISTDAT).
set -euo pipefail

die() {
  echo "plot.sh: error: $*" >&2
  exit 1
}

usage="usage: plot.sh [-o OUTDIR] [--stat min|median|mean] [--predict-max N] INPUT.json | [-o OUTDIR] [--distance-from auto|raw|bins] --compare BASE.json NEW.json"
out="plots"
stat="median"
predict_max=0
compare=0
distance_from="auto"
inputs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -o | --out-dir)
      [[ $# -ge 2 ]] || die "$1 needs a directory ($usage)"
      out="$2"
      shift 2
      ;;
    --stat)
      [[ $# -ge 2 ]] || die "--stat needs a value ($usage)"
      stat="$2"
      shift 2
      ;;
    --predict-max)
      [[ $# -ge 2 ]] || die "--predict-max needs a value ($usage)"
      predict_max="$2"
      shift 2
      ;;
    --compare)
      compare=1
      shift
      ;;
    --distance-from)
      [[ $# -ge 2 ]] || die "--distance-from needs a value ($usage)"
      distance_from="$2"
      shift 2
      ;;
    -h | --help)
      echo "$usage"
      exit 0
      ;;
    -*) die "unknown option '$1' ($usage)" ;;
    *)
      inputs+=("$1")
      shift
      ;;
  esac
done
if [[ $compare -eq 1 ]]; then
  [[ ${#inputs[@]} -eq 2 ]] || die "--compare takes BASE.json and NEW.json ($usage)"
else
  [[ ${#inputs[@]} -le 1 ]] || die "more than one input file ($usage)"
  [[ ${#inputs[@]} -eq 1 ]] || die "no input file ($usage)"
fi
input="${inputs[0]}"

# Locate a helper binary: $ENV, runfiles, bazel-bin, PATH.
find_tool() {
  local name="$1" rel="$2" override="$3"
  if [[ -n "$override" ]]; then
    echo "$override"
    return
  fi
  local self_dir
  self_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  local cand
  for cand in \
    "${RUNFILES_DIR:-/nonexistent}/verbsemu/$rel" \
    "${BASH_SOURCE[0]}.runfiles/verbsemu/$rel" \
    "$self_dir/../../$rel" \
    "$self_dir/../../bazel-bin/$rel"; do
    if [[ -x "$cand" && -f "$cand" ]]; then
      echo "$cand"
      return
    fi
  done
  command -v "$name" || die "cannot find $name (build //$(dirname "$rel"):$name or set \$$(echo "$name" | tr '[:lower:]' '[:upper:]'))"
}
LOPFIT_BIN="$(find_tool lopfit models/lop/lopfit "${LOPFIT:-}")"
HISTDAT_BIN="$(find_tool histdat tools/plot/histdat "${HISTDAT:-}")"
LOPFIT_BIN="$(cd "$(dirname "$LOPFIT_BIN")" && pwd)/$(basename "$LOPFIT_BIN")"
HISTDAT_BIN="$(cd "$(dirname "$HISTDAT_BIN")" && pwd)/$(basename "$HISTDAT_BIN")"
command -v gnuplot >/dev/null || die "gnuplot not found (apt-get install gnuplot-nox)"

# Under `bazel run` relative paths are relative to the user's directory.
if [[ -n "${BUILD_WORKING_DIRECTORY:-}" ]]; then
  cd "$BUILD_WORKING_DIRECTORY"
fi
for f in "${inputs[@]}"; do
  [[ -r "$f" ]] || die "cannot open '$f'"
done
mkdir -p "$out/data" || die "cannot create '$out/data'"
out="$(cd "$out" && pwd)"
data="$out/data"

term='set terminal pngcairo size 1000,700 noenhanced font "sans,10"'
made=()

# gnuplot string literal: "..." with \ and " escaped.
q() {
  local s="${1//\\/\\\\}"
  echo "\"${s//\"/\\\"}\""
}

run_gnuplot() {  # script file
  gnuplot "$1" 2>"$1.log" || die "gnuplot failed on $1: $(head -n 3 "$1.log" | tr '\n' ' ')"
  [[ -s "$1.log" ]] || rm -f "$1.log"
}

# x range and 1-2-5 style ticks that fit a log axis spanning < 1 decade.
log_axis() {  # dat files...
  awk '!/^#/ && NF >= 2 {
         if (lo == "" || ($1 > 0 && $1 < lo)) lo = $1; if ($2 > hi) hi = $2 }
       END {
         if (lo <= 0) lo = hi / 1000; if (hi <= lo) hi = lo * 10
         lo = lo / 1.05; hi = hi * 1.05
         printf "set xrange [%g:%g]\n", lo, hi
         n = split("1 1.5 2 3 4 5 6 7 8 9", m, " ")
         step = (hi / lo > 30) ? 3 : 1
         t = ""
         for (e = int(log(lo) / log(10)) - 1; e <= int(log(hi) / log(10)) + 1; e++)
           for (k = 1; k <= n; k++) {
             v = m[k] * 10 ^ e
             if (step == 3 && m[k] != 1 && m[k] != 2 && m[k] != 5) continue
             if (v >= lo && v <= hi) t = t (t == "" ? "" : ", ") sprintf("\"%g\" %g", v, v)
           }
         if (t != "") printf "set xtics (%s)\n", t
       }' "$@"
}

# ------------------------------------------------------------------ compare
if [[ $compare -eq 1 ]]; then
  "$HISTDAT_BIN" --compare --distance-from "$distance_from" -o "$data" \
    "${inputs[0]}" "${inputs[1]}" >/dev/null
  base_name="$(basename "${inputs[0]}")"
  new_name="$(basename "${inputs[1]}")"
  while IFS=$'\t' read -r name file n_base n_new ks w from point; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    gp="$data/overlay_${name}.gp"
    dat="$data/$file"
    png="$out/overlay_${name}.png"
    title="$point: KS $(printf '%.3f' "$ks"), Wasserstein-1 $(awk -v w="$w" 'BEGIN {printf "%.3f", w / 1000}') us (shared bins from $from)"
    base_key="BASE $base_name ($n_base samples)"
    new_key="NEW $new_name ($n_new samples)"
    cat >"$gp" <<EOF
$term
set output $(q "$png")
set multiplot layout 2,1 title $(q "$title")
set logscale x
$(log_axis "$dat")
set grid
set key top right
set xlabel "time [ns] (log scale)"
set ylabel "PDF [1/ns]"
plot $(q "$dat") using 1:4 with steps lw 2 lc rgb "#3060c0" title $(q "$base_key"), \\
     $(q "$dat") using 1:5 with steps lw 2 lc rgb "#c03030" title $(q "$new_key")
set ylabel "CDF"
set yrange [0:1.02]
set key bottom right
plot $(q "$dat") using 2:6 with lines lw 2 lc rgb "#3060c0" title $(q "$base_key"), \\
     $(q "$dat") using 2:7 with lines lw 2 lc rgb "#c03030" title $(q "$new_key")
unset multiplot
EOF
    run_gnuplot "$gp"
    made+=("$png")
  done <"$data/compare.tsv"
  [[ ${#made[@]} -gt 0 ]] || die "no point in common to plot"
  printf '%s\n' "${made[@]}"
  exit 0
fi

# ---------------------------------------------------------------- histograms
"$HISTDAT_BIN" --allow-none -o "$data" "$input" >/dev/null
names=()
files=()
labels=()
while IFS=$'\t' read -r name file total label; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  names+=("$name")
  files+=("$file")
  labels+=("$label ($total samples)")
done <"$data/histograms.tsv"

for i in "${!names[@]}"; do
  gp="$data/hist_${names[$i]}.gp"
  dat="$data/${files[$i]}"
  png="$out/hist_${names[$i]}.png"
  cat >"$gp" <<EOF
$term
set output $(q "$png")
set multiplot layout 2,1 title $(q "${labels[$i]}")
set logscale x
$(log_axis "$dat")
set grid
set xlabel "time [ns] (log scale)"
set ylabel "PDF (fraction of samples per bin)"
set style fill solid 0.5 border -1
plot $(q "$dat") using 3:(\$5/2):1:2:(0):5 with boxxyerror lc rgb "#3060c0" notitle
set ylabel "CDF"
set yrange [0:1.02]
plot $(q "$dat") using 2:6 with steps lw 2 lc rgb "#c03030" notitle
unset multiplot
EOF
  run_gnuplot "$gp"
  made+=("$png")
done

if [[ ${#names[@]} -gt 1 ]]; then
  gp="$data/cdf_all.gp"
  png="$out/cdf_all.png"
  {
    echo "$term"
    echo "set output $(q "$png")"
    echo 'set title "CDF of every histogram"'
    echo 'set logscale x; set grid; set key bottom right'
    all_dats=()
    for f in "${files[@]}"; do all_dats+=("$data/$f"); done
    log_axis "${all_dats[@]}"
    echo 'set xlabel "time [ns] (log scale)"; set ylabel "CDF"; set yrange [0:1.02]'
    sep="plot"
    for i in "${!names[@]}"; do
      echo "$sep $(q "$data/${files[$i]}") using 2:6 with steps lw 2 title $(q "${labels[$i]}") \\"
      sep=","
    done
    echo ""
  } >"$gp"
  run_gnuplot "$gp"
  made+=("$png")
fi

# ---------------------------------------------------------------- lop curves
if grep -Eq '"lop"[[:space:]]*:' "$input"; then
  "$LOPFIT_BIN" --quiet --stat "$stat" --predict-max "$predict_max" \
    --gnuplot-dir "$data" \
    --json "$data/fit.json" "$input" || exit 1

  # plot_group PNG TITLE YLABEL TYPE... : measured points (min..p99 bars)
  # and fitted lines of every curve whose type is listed.
  plot_group() {
    local png="$1" title="$2" ylabel="$3"
    shift 3
    local gp
    gp="$data/$(basename "$png" .png).gp"
    local sep="plot" n=0 type name dat fit label t
    {
      echo "$term"
      echo "set output $(q "$png")"
      echo "set title $(q "$title")"
      echo "set grid; set key below font \",9\"; set logscale y"
      echo "set xlabel \"p (peers / work requests)\"; set ylabel $(q "$ylabel")"
      while IFS=$'\t' read -r type name dat fit label; do
        [[ -z "$type" || "$type" == \#* ]] && continue
        local want=0
        for t in "$@"; do [[ "$type" == "$t" ]] && want=1; done
        [[ $want -eq 1 ]] || continue
        n=$((n + 1))
        echo "$sep $(q "$data/$dat") using 1:(\$2/1000):(\$5/1000):(\$8/1000) with yerrorbars pt 7 ps 0.6 lc $n title $(q "$name ($stat; bars min..p99)") \\"
        sep=","
        if [[ "$fit" != "-" ]]; then
          echo ", $(q "$data/$fit") using 1:(\$2/1000) with lines lw 2 lc $n title $(q "fit: $label") \\"
          # The LogP member, dashed, unless it is the chosen fit.
          [[ "$label" == *"(logp,"* || "$label" == *"(const,"* ]] ||
            echo ", $(q "$data/$fit") using 1:(\$3/1000) with lines lw 1 dt 2 lc $n title $(q "LogP: $name") \\"
        fi
      done <"$data/curves.tsv"
      echo ""
    } >"$gp"
    if [[ $n -gt 0 ]]; then
      run_gnuplot "$gp"
      made+=("$png")
    fi
  }
  plot_group "$out/rtt.png" "t_rtt(p) = round(p)/p and its fits (dashed: LogP, g + c/p)" "t_rtt per peer [us]" rtt
  plot_group "$out/overhead.png" "o_s(p), o_r(p) and t_ov fits" "overhead [us]" \
    overhead_send overhead_recv

  # Derived L(p), L_list(p) and predictions.
  # PNG TITLE YLABEL MEASURED_COL FIT_COL SINGLE_NAME LIST_NAME [with-latency]
  derived_plot() {
    local png="$1" title="$2" ylabel="$3" mcol="$4" fcol="$5" single="$6"
    local listq="$7" lat="${8:-}"
    local gp
    gp="$data/$(basename "$png" .png).gp"
    local sep="plot" n=0 type name dat fit label
    {
      echo "$term"
      echo "set output $(q "$png")"
      echo "set title $(q "$title")"
      echo "set grid; set key top left"
      echo "set xlabel \"p\"; set ylabel $(q "$ylabel")"
      while IFS=$'\t' read -r type name dat fit label; do
        [[ "$type" == "L" || "$type" == "Llist" ]] || continue
        n=$((n + 1))
        if [[ "$type" == "L" ]]; then label="$single $name"; else label="$listq $name"; fi
        echo "$sep $(q "$data/$dat") using 1:(\$$mcol/1000) with points pt 7 ps 0.7 lc $n title $(q "$label (measured)") \\"
        echo ", $(q "$data/$dat") using 1:(\$$fcol/1000) with lines lw 2 lc $n title $(q "$label (from fits)") \\"
        sep=","
      done <"$data/curves.tsv"
      if [[ -n "$lat" ]]; then
        while IFS=$'\t' read -r type name dat fit label; do
          [[ "$type" == "latency" ]] || continue
          n=$((n + 1))
          echo "$sep $(q "$data/$dat") using 1:(\$2/1000) with points pt 4 ps 1 lc $n title $(q "$name (verbsbench)") \\"
          sep=","
        done <"$data/curves.tsv"
      fi
      echo ""
    } >"$gp"
    if [[ $n -gt 0 ]]; then
      run_gnuplot "$gp"
      made+=("$png")
    fi
  }
  derived_plot "$out/latency.png" \
    "L(p) = t_rtt(p)/2 - (o_s(p) + o_s(1)),  L_list(p) = t_rtt,list(p)/2 - (p o_s(p) + o_s(1))" \
    "L [us]" 2 3 "L" "L_list" with-latency
  derived_plot "$out/predict.png" \
    "predicted t_1:n = o(n) + n L(n),  t^list_1:n = n o(n) + n L_list(n)" \
    "t [us]" 4 5 "t_1:n" "t^list_1:n"
fi

[[ ${#made[@]} -gt 0 ]] || die "'$input' has neither histograms nor lop curves"
printf '%s\n' "${made[@]}"
