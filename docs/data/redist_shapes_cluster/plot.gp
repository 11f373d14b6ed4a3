set terminal pngcairo size 1400,650 noenhanced
set output 'docs/img/redist_shapes_cluster.png'
set title 'redist speed-up per case (COSTA through costa::transform; dashed line: 1.5)'
set ylabel 'time of the other / time of redist (1 = equal)'
set key outside top center horizontal
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set yrange [0.1:*]
set xtics rotate by 35 right font ',8'
set bmargin 8
set rmargin 4
set grid ytics
set arrow from graph 0, first 1.5 to graph 1, first 1.5 nohead dt 2 lc rgb 'red'
plot 'docs/data/redist_shapes_cluster/plot.dat' using ($4 > 0 ? $4 : 0.1):xtic(2) title 'COSTA / redist (cma)', \
     '' using ($6 > 0 ? $6 : 0.1):xtic(2) title 'COSTA / redist (none)', \
     '' using ($3 > 0 ? $3 : 0.1):xtic(2) title 'PDGEMR2D / redist (cma)'
