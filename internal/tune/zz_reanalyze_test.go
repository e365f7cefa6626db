package tune

import (
	"encoding/json"
	"os"
	"testing"
)

func TestZZReanalyze(t *testing.T) {
	f := os.Getenv("KV_TUNE_JSON")
	if f == "" {
		t.Skip()
	}
	js, _ := os.ReadFile(f)
	var old Result
	if err := json.Unmarshal(js, &old); err != nil {
		t.Fatal(err)
	}
	res := &Result{Config: old.Config}
	for _, o := range old.Ops {
		var pts []Point
		for _, p := range o.Points {
			pts = append(pts, NewPoint(p.Size, p.Eager, p.Rendezvous, res.Config.alpha()))
		}
		res.Ops = append(res.Ops, Analyze(o.Op, pts, res.Config.KeySize))
	}
	res.recommend(res.Config.KeySize)
	res.WriteTable(os.Stdout)
	if out := os.Getenv("KV_TUNE_OUT"); out != "" {
		if _, err := res.Save(out); err != nil {
			t.Fatal(err)
		}
	}
}
