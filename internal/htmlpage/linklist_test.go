package htmlpage

import "testing"

func TestLinkListLinksEachFile(t *testing.T) {
	got := string(LinkList([2]string{"a/results.json", "A <1>"}, [2]string{"tune.json", "tune.json"}))
	want := `<ul class="links"><li><a href="a/results.json">A &lt;1&gt;</a></li><li><a href="tune.json">tune.json</a></li></ul>`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
