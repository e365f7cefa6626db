package stats

import "math"

// Spearman is Spearman's rank correlation of the pairs (x[i], y[i]), on
// mid-ranks so that ties are allowed, and the two-sided p-value of the
// hypothesis that they are independent, from the t approximation with
// n-2 degrees of freedom (as scipy.stats.spearmanr gives it). Ranks make
// it blind to the latencies' skew: one slow operation moves it no more
// than one a little above the median. With fewer than three pairs, or
// when either side is constant, there is nothing to correlate: rho 0, p 1.
func Spearman(x, y []float64) (rho, p float64) {
	n := min(len(x), len(y))
	if n < 3 {
		return 0, 1
	}
	rx, ry := midRanks(x[:n]), midRanks(y[:n])
	mean := float64(n+1) / 2
	var sxy, sxx, syy float64
	for i := range n {
		dx, dy := rx[i]-mean, ry[i]-mean
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, 1
	}
	rho = sxy / math.Sqrt(sxx*syy)
	if math.Abs(rho) >= 1 {
		return rho, 0
	}
	df := float64(n - 2)
	t := rho * math.Sqrt(df/(1-rho*rho))
	return rho, StudentTP(t, df)
}

// StudentTP is the two-sided p-value of t under Student's t distribution
// with df degrees of freedom.
func StudentTP(t, df float64) float64 {
	return incBeta(df/2, 0.5, df/(df+t*t))
}

// incBeta is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Numerical Recipes, betai), which converges fast on
// the side of x it is evaluated on.
func incBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

// betaFraction evaluates incBeta's continued fraction by Lentz's method.
func betaFraction(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1.0; m <= 300; m++ {
		m2 := 2 * m
		for _, aa := range [2]float64{m * (b - m) * x / ((a + m2 - 1) * (a + m2)), -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))} {
			d = 1 + aa*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + aa/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			h *= d * c
		}
		if math.Abs(d*c-1) < eps {
			break
		}
	}
	return h
}
