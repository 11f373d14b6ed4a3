set terminal pngcairo size 1000,450 font ",10"
set output "docs/img/checkpoint.png"
set title "Checkpoint write / restart read vs raw MPI-IO of the same bytes (N = 4000, medians)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "seconds"
set key top right
set bmargin 4
set grid ytics
plot "docs/data/checkpoint/plot.dat" using 2:xtic(1) title "checkpoint write", '' using 3 title "raw write", \
     '' using 4 title "restart read", '' using 5 title "raw read"
