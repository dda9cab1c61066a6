package verify

import "testing"

func TestUserAskedToVerify(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  bool
	}{
		// English requests.
		{"run the tests", true},
		{"Fix the parser and run the tests.", true},
		{"please rerun all the unit tests", true},
		{"execute the test suite", true},
		{"fix it and verify", true},
		{"Then verify it.", true},
		{"verify your changes", true},
		{"make sure the tests pass", true},
		{"ensure all tests still pass", true},
		{"add the flag and test it", true},
		{"the tests must still pass", true},
		{"it does not compile. Run the tests", true},
		{"run `go test ./...` afterwards", true},
		{"run go test ./... when done", true},
		{"run `make test`", true}, // asks to run a test command, even a non-whitelisted one
		{"verify", true},
		// Chinese requests.
		{"执行验证", true},
		{"修复后跑测试", true},
		{"请运行测试", true},
		{"改完跑一下单测", true},
		{"重新跑一遍所有测试", true},
		{"验证一下", true},
		{"修复并验证", true},
		{"确保测试都通过", true},
		{"跑 go test ./...", true},
		// Not requests.
		{"", false},
		{"add a flag", false},
		{"add a verify function to the signer", false},
		{"write a test that checks the parser", false},
		{"add unit tests for the lexer", false},
		{"why do the tests fail?", false},
		{"go test ./... fails, fix it", false}, // mentions the command, does not ask to run it
		{"写一个验证码模块", false},
		{"给这个函数写测试", false},
		{"添加输入验证逻辑", false},
		{"run the server with `go run .`", false},
		// Chinese words that contain a request's characters.
		{"合并测试用例文件", false},     // merge the test case files
		{"让签名函数不再验证证书", false},  // the signer no longer verifies certificates
		{"修复测试下载模块的bug", false}, // the test-download module
		{"写一个函数验证下单参数", false},  // validate the order's parameters
		{"修复测试下拉框的样式", false},   // the test drop-down
		{"重构检验下游接口的代码", false},  // code that checks the downstream API
		{"修改测试下标越界的问题", false},  // an index out of range in a test
		{"改完验证下吧", true},
		{"验证下", true},
		{"修复后再验证", true},
		{"一并测试", true},
		// Refusals.
		{"don't run the tests", false},
		{"fix it, do not run tests", false},
		{"no need to run the tests", false},
		{"skip the tests this time", false},
		{"不要跑测试", false},
		{"不用验证", false},
		{"don't run `go test ./...`", false},
		// A refusal in one clause does not hide a request in another.
		{"don't touch the config, just run the tests", true},
		{"先不用跑测试，改完再跑测试", true},
	} {
		if got := UserAskedToVerify(tc.input); got != tc.want {
			t.Errorf("UserAskedToVerify(%q) = %v, want %v", tc.input, got, tc.want)
		}
	}
}

func TestUserDeclinedVerify(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  bool
	}{
		{"rename it, don't run the tests", true},
		{"skip verification", true},
		{"without running the tests", true},
		{"不用跑测试", true},
		{"别跑测试了", true},
		{"跳过验证", true},
		{"run the tests", false},
		{"don't modify the test file", false},
		{"don't change the tests, fix the code", false},
		{"不要修改测试", false},
		{"别的测试也要改", false},
		{"don't touch the config, just run the tests", false},
		{"add a flag", false},
	} {
		if got := UserDeclinedVerify(tc.input); got != tc.want {
			t.Errorf("UserDeclinedVerify(%q) = %v, want %v", tc.input, got, tc.want)
		}
	}
}
