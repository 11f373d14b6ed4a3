set terminal pngcairo size 1400,600 noenhanced
set output '/work/wt/h43/docs/img/redist_shapes_cluster.png'
set title 'redist speed-up per case (time of the other / time of redist; 1 = equal; dashed: 1.5; COSTA through costa::transform)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set yrange [0.1:*]
set xtics rotate by -40 font ',8'
set grid ytics
set arrow from graph 0, first 1.5 to graph 1, first 1.5 nohead dt 2 lc rgb 'red'
plot '/work/wt/h43/docs/data/redist_shapes_cluster/plot.dat' using ($4 > 0 ? $4 : 0.1):xtic(2) title 'COSTA / redist (cma)', \
     '' using ($6 > 0 ? $6 : 0.1):xtic(2) title 'COSTA / redist (none)', \
     '' using ($3 > 0 ? $3 : 0.1):xtic(2) title 'PDGEMR2D / redist (cma)'
