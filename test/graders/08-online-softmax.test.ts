import { graderSuite } from "./suite";

graderSuite("08-online-softmax");
