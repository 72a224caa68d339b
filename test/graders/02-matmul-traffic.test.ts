import { graderSuite } from "./suite";

graderSuite("02-matmul-traffic");
