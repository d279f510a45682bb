// Command mandelbrot renders the Mandelbrot set with parallel.For, one row
// per iteration, and writes it to a PNG file. Rows through the set cost a
// hundred times more than rows outside it; the adaptive split of
// parallel.For balances that without any tuning.
//
//	go run ./examples/mandelbrot [-size 1024] [-iter 500] [-o mandelbrot.png]
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// render computes row y of the image.
func render(img *image.Gray, y, size, maxIter int) {
	ci := float64(y)/float64(size)*2.4 - 1.2
	for x := 0; x < size; x++ {
		cr := float64(x)/float64(size)*3.2 - 2.2
		zr, zi := 0.0, 0.0
		i := 0
		for ; i < maxIter && zr*zr+zi*zi <= 4; i++ {
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		}
		shade := uint8(0) // inside the set: black
		if i < maxIter {
			shade = uint8(255 - 255*i/maxIter)
		}
		img.SetGray(x, y, color.Gray{Y: shade})
	}
}

func main() {
	size := flag.Int("size", 1024, "image width and height in pixels")
	maxIter := flag.Int("iter", 500, "maximum iterations per pixel")
	out := flag.String("o", filepath.Join(os.TempDir(), "mandelbrot.png"), "output PNG file")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "pool workers")
	flag.Parse()

	seqImg := image.NewGray(image.Rect(0, 0, *size, *size))
	start := time.Now()
	for y := 0; y < *size; y++ {
		render(seqImg, y, *size, *maxIter)
	}
	seq := time.Since(start)

	p := pool.New(pool.WithWorkers(*workers))
	defer p.Close()
	img := image.NewGray(image.Rect(0, 0, *size, *size))
	start = time.Now()
	parallel.For(p, 0, *size, func(_ *pool.Worker, y int) {
		render(img, y, *size, *maxIter)
	})
	par := time.Since(start)

	for i := range img.Pix {
		if img.Pix[i] != seqImg.Pix[i] {
			panic("parallel image differs from the sequential one")
		}
	}
	f, err := os.Create(*out)
	if err == nil {
		err = png.Encode(f, img)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%dx%d, up to %d iterations per pixel, %d workers\n", *size, *size, *maxIter, p.Workers())
	fmt.Printf("sequential loop %v, parallel.For %v (%.2fx)\n",
		seq.Round(time.Microsecond), par.Round(time.Microsecond), seq.Seconds()/par.Seconds())
	fmt.Println("wrote", *out)
}
